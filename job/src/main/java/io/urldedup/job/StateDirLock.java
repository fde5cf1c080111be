package io.urldedup.job;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * The lock a command holds on a local {@code --state DIR} while it may write there ({@code run
 * --state} from before its restore until its savepoint is written, {@code bootstrap}): two writers
 * would each save their own view, and the last save would silently drop the other's URLs.
 *
 * <p>An OS file lock ({@link FileChannel#tryLock}) on {@value #FILE} in DIR: it dies with its
 * process (also on {@code kill -9}), so a lock file left behind by a dead process is free and is
 * simply taken over. The file holds the holder's pid and start time, for the message that refuses a
 * second writer. It is never deleted: a process that opened it just before a delete would lock an
 * orphaned inode while a third locks a new file.
 *
 * <p>{@code inspect} and {@code probe} do not take it: they only read, a read must not wait for
 * (nor stop) a run that may last days ({@code tail -f | run --state}), and a snapshot they read is
 * complete (a run removes an older savepoint only after the new one is complete; a reader that
 * loses that race fails with an error, to be run again).
 */
final class StateDirLock implements AutoCloseable {

  static final String FILE = "urldedup.lock";

  private final FileChannel channel;
  private final FileLock lock;

  private StateDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code dir} (an existing directory) for {@code command}; refuses with a {@link
   * ConfigException} naming the holder when another process (or another command of this one) holds
   * it.
   */
  static StateDirLock acquire(Path dir, String command) {
    Path file = dir.resolve(FILE);
    FileChannel ch;
    try {
      ch =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new ConfigException(
          "--state: cannot open the lock file "
              + file
              + " ("
              + e.getMessage()
              + "); accepted: a writable directory");
    }
    try {
      FileLock lock;
      try {
        lock = ch.tryLock();
      } catch (OverlappingFileLockException sameJvm) {
        lock = null;
      }
      if (lock == null) {
        String holder = holder(ch);
        ch.close();
        throw new ConfigException(
            "--state "
                + dir
                + " is in use by another urldedup command ("
                + holder
                + "): two writers would each save their own state and the last save would drop the other's"
                + " URLs; accepted: a directory no other command is writing (wait for it to end, or stop it)");
      }
      ch.truncate(0);
      ProcessHandle self = ProcessHandle.current();
      String started = self.info().startInstant().map(Instant::toString).orElse("unknown");
      ch.write(
          ByteBuffer.wrap(
              ("pid=" + self.pid() + "\nstarted=" + started + "\ncommand=" + command + "\n")
                  .getBytes(StandardCharsets.UTF_8)),
          0);
      ch.force(false);
      return new StateDirLock(ch, lock);
    } catch (IOException e) {
      try {
        ch.close();
      } catch (IOException ignored) {
        // the lock (if any) goes with the channel
      }
      throw new ConfigException(
          "--state: cannot lock "
              + file
              + " ("
              + e.getMessage()
              + "); accepted: a local"
              + " directory on a file system with file locks");
    }
  }

  /**
   * "pid 1234, started 2026-12-04T16:27:01Z, run", from the lock file; what is missing is said so.
   */
  private static String holder(FileChannel ch) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(512);
    ch.read(b, 0);
    String pid = null;
    String started = null;
    String command = null;
    for (String line : new String(b.array(), 0, b.position(), StandardCharsets.UTF_8).split("\n")) {
      if (line.startsWith("pid=")) {
        pid = line.substring(4);
      } else if (line.startsWith("started=")) {
        started = line.substring(8);
      } else if (line.startsWith("command=")) {
        command = line.substring(8);
      }
    }
    if (pid == null) {
      return "its holder is just starting";
    }
    return "pid " + pid + ", started " + started + (command == null ? "" : ", " + command);
  }

  @Override
  public void close() throws IOException {
    try {
      channel.truncate(0);
      lock.release();
    } finally {
      channel.close();
    }
  }
}
