package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an embedded run listens on, read from the kernel while it runs: the TCP sockets in LISTEN
 * state in {@code /proc/<pid>/net/tcp} and {@code tcp6} whose inodes are the process's own file
 * descriptors. Flink's MiniCluster opens its REST API (which cancels jobs and writes savepoints
 * anywhere, without authentication) and its blob server on all interfaces by default; here every
 * one must be on loopback.
 */
class ListeningSocketsTest {

  @TempDir Path dir;

  /** A listening socket: its local address and port. */
  record Listener(InetAddress address, int port) {
    @Override
    public String toString() {
      return address.getHostAddress() + ":" + port;
    }
  }

  @Test
  @Timeout(600)
  void anEmbeddedRunListensOnLoopbackOnly() throws Exception {
    Path tmp = dir.resolve("tmp");
    List<String> cmd =
        LauncherJvm.command(
            tmp,
            "512m",
            List.of(
                "run",
                "--input",
                "-",
                "--output",
                "-",
                "--hash-seed",
                "0x6a09e667f3bcc908",
                "--parallelism",
                "1"));
    Process p = new ProcessBuilder(cmd).redirectError(dir.resolve("stderr.txt").toFile()).start();
    List<Listener> listening;
    try (OutputStream stdin = p.getOutputStream();
        BufferedReader out =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      stdin.write("https://a.example/1\n".getBytes(StandardCharsets.US_ASCII));
      stdin.flush();
      // the URL came through: the cluster is up and the job runs
      assertNotNull(out.readLine(), Files.readString(dir.resolve("stderr.txt")));
      listening = listeners(p.pid());
    }
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "no exit after the end of stdin");
    assertEquals(0, p.exitValue(), Files.readString(dir.resolve("stderr.txt")));
    System.out.println("an embedded run listens on " + listening);
    List<Listener> open = listening.stream().filter(l -> !l.address().isLoopbackAddress()).toList();
    assertEquals(List.of(), open, "listening beyond loopback (all: " + listening + ")");
  }

  /** The process's TCP sockets in LISTEN state. */
  static List<Listener> listeners(long pid) throws IOException {
    Set<String> inodes = new HashSet<>();
    try (DirectoryStream<Path> fds =
        Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
      for (Path fd : fds) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring("socket:[".length(), target.length() - 1));
          }
        } catch (IOException closedMeanwhile) {
          // not a socket we need
        }
      }
    }
    List<Listener> out = new ArrayList<>();
    for (String table : List.of("tcp", "tcp6")) {
      List<String> rows = Files.readAllLines(Path.of("/proc", Long.toString(pid), "net", table));
      for (String row : rows.subList(1, rows.size())) {
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
        String[] f = row.trim().split("\\s+");
        if (f[3].equals("0A") && inodes.contains(f[9])) {
          String[] local = f[1].split(":");
          out.add(new Listener(address(local[0]), Integer.parseInt(local[1], 16)));
        }
      }
    }
    return out;
  }

  /**
   * The kernel prints an address as 32-bit words in hex, each in host (little-endian) byte order.
   */
  static InetAddress address(String hex) throws IOException {
    byte[] b = new byte[hex.length() / 2];
    for (int word = 0; word < b.length / 4; word++) {
      for (int i = 0; i < 4; i++) {
        int at = (word * 4 + i) * 2;
        b[word * 4 + 3 - i] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
      }
    }
    return InetAddress.getByAddress(b);
  }

  /** The parser itself: the kernel's spelling of the addresses that matter. */
  @Test
  void kernelAddressesParse() throws IOException {
    assertEquals("127.0.0.1", address("0100007F").getHostAddress());
    assertEquals("0.0.0.0", address("00000000").getHostAddress());
    assertTrue(address("0000000000000000FFFF00000100007F").isLoopbackAddress(), "::ffff:127.0.0.1");
    assertTrue(address("00000000000000000000000001000000").isLoopbackAddress(), "::1");
    assertTrue(
        !address("00000000000000000000000000000000").isLoopbackAddress(), ":: (all interfaces)");
  }
}
