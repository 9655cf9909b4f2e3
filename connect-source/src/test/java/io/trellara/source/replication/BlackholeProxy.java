package io.trellara.source.replication;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a server whose existing connections can be made to lose every packet (as
 * when a NAT, firewall or load balancer drops the flow): both ends stay open, nothing reaches the
 * other side. Connections made afterwards pass.
 */
final class BlackholeProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final String targetHost;
  private final int targetPort;
  private final List<Link> links = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  private static final class Link {
    final Socket client;
    final Socket server;
    volatile boolean blackholed;

    Link(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }
  }

  BlackholeProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "blackhole-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  /** From now on the connections open now lose everything sent either way. */
  void blackholeExisting() {
    links.forEach(l -> l.blackholed = true);
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(targetHost, targetPort);
        Link link = new Link(client, server);
        links.add(link);
        pump(link, client, server, "up");
        pump(link, server, client, "down");
      } catch (IOException e) {
        if (!closed) {
          throw new IllegalStateException("proxy accept failed", e);
        }
      }
    }
  }

  private static void pump(Link link, Socket from, Socket to, String direction) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try { // not try-with-resources: closing a socket's stream closes the socket
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  if (!link.blackholed) { // read and discarded when blackholed: the sender never
                    // blocks
                    out.write(buffer, 0, n);
                    out.flush();
                  }
                }
              } catch (IOException e) {
                // one side closed
              }
              if (!link.blackholed) {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "blackhole-proxy-" + direction);
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly2(listener);
    for (Link l : links) {
      closeQuietly(l.client);
      closeQuietly(l.server);
    }
  }

  private static void closeQuietly2(ServerSocket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing
    }
  }
}
