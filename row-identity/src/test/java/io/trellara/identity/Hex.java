package io.trellara.identity;

import java.util.HexFormat;

final class Hex {
  private Hex() {}

  static String of(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  static byte[] parse(String s) {
    return HexFormat.of().parseHex(s.replace(" ", ""));
  }
}
