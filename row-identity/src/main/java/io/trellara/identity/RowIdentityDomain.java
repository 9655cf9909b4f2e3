package io.trellara.identity;

/**
 * Identity domains: the second byte of every identity keeps different identity meanings disjoint.
 */
public enum RowIdentityDomain {
  SCAN_KEY(0x01),
  KEYLESS_ROW(0x02),
  GROUP_KEY(0x03),
  JOIN_KEY(0x04),
  SET_KEY(0x05),
  WINDOW_KEY(0x06),
  SYNTHETIC(0x07);

  private static final RowIdentityDomain[] BY_CODE = new RowIdentityDomain[8];

  static {
    for (RowIdentityDomain d : values()) {
      BY_CODE[d.code] = d;
    }
  }

  private final int code;

  RowIdentityDomain(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /**
   * @throws RowIdentityException for any byte that is not a registered domain (fail closed)
   */
  public static RowIdentityDomain fromCode(int code) {
    if (code <= 0 || code >= BY_CODE.length) {
      throw new RowIdentityException(
          "unknown identity domain 0x" + Integer.toHexString(code & 0xFF));
    }
    return BY_CODE[code];
  }
}
