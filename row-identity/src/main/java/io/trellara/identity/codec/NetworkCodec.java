package io.trellara.identity.codec;

import io.trellara.identity.RowIdentityException;
import io.trellara.identity.TypeTag;

/**
 * inet/cidr: family (PostgreSQL's PGSQL_AF_INET 2, PGSQL_AF_INET6 3), prefix length, then the 4 or
 * 16 address bytes (cidr host bits cleared). Orders by family, prefix length, address: not
 * PostgreSQL's network order (documented comparator), equality exact. macaddr/macaddr8:
 * network-order bytes.
 */
final class NetworkCodec implements FieldCodec {
  static final NetworkCodec INET = new NetworkCodec(TypeTag.INET);
  static final NetworkCodec CIDR = new NetworkCodec(TypeTag.CIDR);
  static final NetworkCodec MACADDR = new NetworkCodec(TypeTag.MACADDR);
  static final NetworkCodec MACADDR8 = new NetworkCodec(TypeTag.MACADDR8);

  static final int AF_INET = 2;
  static final int AF_INET6 = 3;

  private final TypeTag tag;

  private NetworkCodec(TypeTag tag) {
    this.tag = tag;
  }

  @Override
  public TypeTag tag() {
    return tag;
  }

  @Override
  public void encodeText(byte[] v, int off, int end, IdentityBuffer out, int depth) {
    if (tag == TypeTag.MACADDR || tag == TypeTag.MACADDR8) {
      writeMac(v, off, end, tag.fixedWidth(), out);
    } else {
      writeInet(v, off, end, out);
    }
  }

  private void writeMac(byte[] v, int off, int end, int width, IdentityBuffer out) {
    if (end - off != width * 3 - 1) {
      throw Ascii.invalid(tag.sqlName(), v, off, end);
    }
    out.ensure(width);
    for (int k = 0; k < width; k++) {
      int p = off + k * 3;
      int hi = Ascii.hexValue(v[p]);
      int lo = Ascii.hexValue(v[p + 1]);
      if (hi < 0 || lo < 0 || (k < width - 1 && v[p + 2] != ':' && v[p + 2] != '-')) {
        throw Ascii.invalid(tag.sqlName(), v, off, end);
      }
      out.put(hi << 4 | lo);
    }
  }

  private void writeInet(byte[] v, int off, int end, IdentityBuffer out) {
    int slash = Ascii.indexOf(v, off, end, (byte) '/');
    int addrEnd = slash < 0 ? end : slash;
    boolean v6 = Ascii.indexOf(v, off, addrEnd, (byte) ':') >= 0;
    byte[] addr = new byte[v6 ? 16 : 4];
    if (v6) {
      parseV6(v, off, addrEnd, addr);
    } else if (!parseV4(v, off, addrEnd, addr, 0)) {
      throw Ascii.invalid(tag.sqlName(), v, off, end);
    }
    int maxBits = addr.length * 8;
    int bits = slash < 0 ? maxBits : Ascii.parseDigits(v, slash + 1, end, tag.sqlName());
    if (bits > maxBits || (slash < 0 && tag == TypeTag.CIDR)) {
      throw Ascii.invalid(tag.sqlName(), v, off, end);
    }
    if (tag == TypeTag.CIDR) {
      clearHostBits(addr, bits);
    }
    out.put(v6 ? AF_INET6 : AF_INET);
    out.put(bits);
    out.putBytes(addr, 0, addr.length);
  }

  static void clearHostBits(byte[] addr, int bits) {
    for (int i = 0; i < addr.length; i++) {
      int keep = Math.max(0, Math.min(8, bits - i * 8));
      addr[i] &= (byte) (0xFF00 >>> keep);
    }
  }

  private boolean parseV4(byte[] v, int off, int end, byte[] addr, int at) {
    int part = 0;
    int start = off;
    for (int i = off; i <= end; i++) {
      if (i == end || v[i] == '.') {
        if (part > 3 || i == start || i - start > 3) {
          return false;
        }
        int n = Ascii.parseDigits(v, start, i, tag.sqlName());
        if (n > 255) {
          return false;
        }
        addr[at + part++] = (byte) n;
        start = i + 1;
      }
    }
    return part == 4;
  }

  private void parseV6(byte[] v, int off, int end, byte[] addr) {
    int[] groups = new int[8];
    int count = 0;
    int gap = -1;
    int i = off;
    if (end - off >= 2 && v[off] == ':' && v[off + 1] == ':') {
      gap = 0;
      i = off + 2;
    }
    while (i < end) {
      int colon = Ascii.indexOf(v, i, end, (byte) ':');
      int tokenEnd = colon < 0 ? end : colon;
      if (colon < 0 && Ascii.indexOf(v, i, end, (byte) '.') >= 0) {
        byte[] v4 = new byte[4];
        if (count > 6 || !parseV4(v, i, end, v4, 0)) {
          throw Ascii.invalid(tag.sqlName(), v, off, end);
        }
        groups[count++] = (v4[0] & 0xFF) << 8 | (v4[1] & 0xFF);
        groups[count++] = (v4[2] & 0xFF) << 8 | (v4[3] & 0xFF);
        break;
      }
      if (tokenEnd == i || tokenEnd - i > 4 || count >= 8) {
        throw Ascii.invalid(tag.sqlName(), v, off, end);
      }
      int g = 0;
      for (int k = i; k < tokenEnd; k++) {
        int h = Ascii.hexValue(v[k]);
        if (h < 0) {
          throw Ascii.invalid(tag.sqlName(), v, off, end);
        }
        g = g << 4 | h;
      }
      groups[count++] = g;
      i = tokenEnd + 1;
      if (colon >= 0 && colon + 1 < end && v[colon + 1] == ':') {
        if (gap >= 0) {
          throw Ascii.invalid(tag.sqlName(), v, off, end);
        }
        gap = count;
        i = colon + 2;
      } else if (colon == end - 1) {
        throw Ascii.invalid(tag.sqlName(), v, off, end);
      }
    }
    if (gap < 0 ? count != 8 : count > 7) {
      throw Ascii.invalid(tag.sqlName(), v, off, end);
    }
    int zeros = 8 - count;
    for (int g = 0, w = 0; g < count; g++, w++) {
      if (g == gap) {
        w += zeros;
      }
      addr[w * 2] = (byte) (groups[g] >>> 8);
      addr[w * 2 + 1] = (byte) groups[g];
    }
  }

  @Override
  public boolean supportsBinary() {
    return true;
  }

  /** Send formats: macaddr/macaddr8 raw bytes; inet/cidr family, bits, is_cidr, length, address. */
  @Override
  public void encodeBinary(byte[] v, int off, int end, IdentityBuffer out) {
    if (tag == TypeTag.MACADDR || tag == TypeTag.MACADDR8) {
      if (end - off != tag.fixedWidth()) {
        throw Ascii.invalid(tag.sqlName() + " binary", v, off, end);
      }
      out.putBytes(v, off, end - off);
      return;
    }
    int family = end - off >= 4 ? v[off] & 0xFF : -1;
    int n = family == AF_INET ? 4 : family == AF_INET6 ? 16 : -1;
    int bits = n < 0 ? -1 : v[off + 1] & 0xFF;
    if (n < 0 || end - off != 4 + n || (v[off + 3] & 0xFF) != n || bits > n * 8) {
      throw Ascii.invalid(tag.sqlName() + " binary", v, off, end);
    }
    byte[] addr = java.util.Arrays.copyOfRange(v, off + 4, end);
    if (tag == TypeTag.CIDR) {
      clearHostBits(addr, bits);
    }
    out.put(family);
    out.put(bits);
    out.putBytes(addr, 0, n);
  }

  /**
   * Decoding: inet/cidr as dotted quad or eight hex groups (no :: compression), the prefix when not
   * a full host; macs as xx:xx.
   */
  static String render(TypeTag tag, IdentityReader in) {
    return switch (tag) {
      case MACADDR -> renderMac(in, 6);
      case MACADDR8 -> renderMac(in, 8);
      default -> renderInet(tag, in);
    };
  }

  private static String renderInet(TypeTag tag, IdentityReader in) {
    int family = in.u8();
    int bits = in.u8();
    int n = family == AF_INET ? 4 : family == AF_INET6 ? 16 : -1;
    if (n < 0 || bits > n * 8) {
      throw new RowIdentityException("invalid inet family/prefix " + family + "/" + bits);
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i += n == 4 ? 1 : 2) {
      if (n == 4) {
        sb.append(i == 0 ? "" : ".").append(in.u8());
      } else {
        sb.append(i == 0 ? "" : ":").append(Integer.toHexString(in.u8() << 8 | in.u8()));
      }
    }
    if (tag == TypeTag.CIDR || bits != n * 8) {
      sb.append('/').append(bits);
    }
    return sb.toString();
  }

  private static String renderMac(IdentityReader in, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(':');
      }
      Ascii.appendHex(sb, in.u8());
    }
    return sb.toString();
  }
}
