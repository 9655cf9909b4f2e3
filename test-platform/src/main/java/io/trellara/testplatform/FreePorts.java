package io.trellara.testplatform;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Picks TCP ports that are free on the loopback interface at the time of the call. */
public final class FreePorts {

  private FreePorts() {}

  /** A port nothing listens on right now (the usual small race with other processes applies). */
  public static int next() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free TCP port on the loopback interface", e);
    }
  }
}
