package io.trellara.testplatform;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP forwarder between a client (a connector) and a server, for fault tests: {@link #cut()}
 * resets every connection through it at once (RST, as a dropped NAT entry or a restarted firewall
 * does), and while it is {@link #refuse(boolean) refusing} every new connection is reset as soon as
 * it is accepted, and while it is {@link #freeze(boolean) frozen} no byte is forwarded either way
 * although every connection stays open (a server, or the network to it, that stopped answering: the
 * client's reads wait, its writes fill the socket buffers). Threads: one acceptor, two pumps per
 * connection.
 */
public final class TcpProxy implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TcpProxy.class);

  private final String name;
  private volatile InetSocketAddress target;
  private final ServerSocket listener;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final AtomicBoolean refusing = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Object thaw = new Object();
  private volatile boolean frozen;
  private final Thread acceptor;

  private TcpProxy(String name, String targetHost, int targetPort) {
    this.name = name;
    this.target = InetSocketAddress.createUnresolved(targetHost, targetPort);
    try {
      this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen for proxy " + name, e);
    }
    this.acceptor = new Thread(this::accept, "tcp-proxy-" + name);
    this.acceptor.setDaemon(true);
    this.acceptor.start();
  }

  /** Forwards a loopback port of its own to {@code host:port}. */
  public static TcpProxy to(String name, String host, int port) {
    return new TcpProxy(name, host, port);
  }

  public String host() {
    return listener.getInetAddress().getHostAddress();
  }

  public int port() {
    return listener.getLocalPort();
  }

  /**
   * New connections go to {@code host:port} from now on (a host name an operator moved to another
   * server, e.g. to a promoted standby); open ones are left alone ({@link #cut()} ends them).
   */
  public void moveTo(String host, int port) {
    target = InetSocketAddress.createUnresolved(host, port);
    LOG.info("proxy {}: now forwards to {}:{}", name, host, port);
  }

  /** Resets every connection through the proxy now. */
  public void cut() {
    int n = 0;
    for (Socket s : open) {
      reset(s);
      n++;
    }
    LOG.info("proxy {}: cut {} socket(s)", name, n);
  }

  /**
   * While true, new connections are reset as soon as they are accepted (the server looks
   * unreachable).
   */
  public void refuse(boolean refuse) {
    refusing.set(refuse);
  }

  /**
   * While true, bytes are neither forwarded nor refused: each pump holds what it read until the
   * proxy thaws (and then forwards it), connections stay open, new ones are accepted and connected
   * but carry nothing. {@link #cut()} and {@link #close()} still reset everything at once.
   */
  public void freeze(boolean freeze) {
    synchronized (thaw) {
      frozen = freeze;
      thaw.notifyAll();
    }
    LOG.info("proxy {}: {}", name, freeze ? "frozen" : "thawed");
  }

  public boolean isFrozen() {
    return frozen;
  }

  /** Waits while frozen; false when the proxy or {@code from} closed meanwhile. */
  private boolean awaitThawed(Socket from) {
    synchronized (thaw) {
      while (frozen && !closed.get() && !from.isClosed()) {
        try {
          thaw.wait(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return !closed.get() && !from.isClosed();
  }

  /** Connections currently open through the proxy (each counted once, client side). */
  public int connections() {
    return open.size() / 2;
  }

  private void accept() {
    while (!closed.get()) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (!closed.get()) {
          LOG.warn("proxy {}: accept failed: {}", name, e.toString());
        }
        return;
      }
      if (refusing.get()) {
        reset(client);
        continue;
      }
      Socket server = new Socket();
      try {
        InetSocketAddress to = target;
        server.connect(new InetSocketAddress(to.getHostString(), to.getPort()), 5_000);
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
      } catch (IOException e) {
        reset(client);
        reset(server);
        continue;
      }
      open.add(client);
      open.add(server);
      pump(client, server, "up");
      pump(server, client, "down");
    }
  }

  private void pump(Socket from, Socket to, String direction) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[64 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                  if (!awaitThawed(from)) {
                    break;
                  }
                  out.write(buffer, 0, n);
                }
              } catch (IOException e) {
                // the other side went away, or cut(): reset both ends below
              } finally {
                reset(from);
                reset(to);
              }
            },
            "tcp-proxy-" + name + "-" + direction);
    t.setDaemon(true);
    t.start();
  }

  private void reset(Socket s) {
    open.remove(s);
    try {
      if (!s.isClosed()) {
        s.setSoLinger(true, 0); // close with RST, not FIN
      }
    } catch (SocketException e) {
      // already gone
    }
    try {
      s.close();
    } catch (IOException e) {
      // already gone
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        listener.close();
      } catch (IOException e) {
        // closing
      }
      cut();
    }
  }

  @Override
  public String toString() {
    return "TcpProxy["
        + name
        + " "
        + port()
        + " -> "
        + target.getHostString()
        + ":"
        + target.getPort()
        + "]";
  }
}
