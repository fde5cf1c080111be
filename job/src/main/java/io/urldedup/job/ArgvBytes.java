package io.urldedup.job;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Command-line arguments as the bytes the shell passed. The JVM decodes its arguments with the
 * locale's charset ({@code sun.jnu.encoding}) and replaces what does not decode: bytes that are no
 * UTF-8 become U+FFFD, and under the C locale every non-ASCII byte does. {@code probe URL} would
 * then answer for another URL than {@code run} reads from a file holding the same bytes (seen where
 * run dead-letters bad_utf8, or bad_host for a valid IDN). Linux keeps the bytes in {@code
 * /proc/self/cmdline}; elsewhere the decoded text is all there is.
 */
final class ArgvBytes {

  private static final Path CMDLINE = Path.of("/proc/self/cmdline");

  private ArgvBytes() {}

  /** The bytes of each of {@code words}, which are (some of) this process's arguments, in order. */
  static List<byte[]> of(List<String> words) {
    List<byte[]> cmdline = new ArrayList<>();
    try {
      if (!words.isEmpty() && Files.isReadable(CMDLINE)) {
        byte[] all = Files.readAllBytes(CMDLINE);
        int start = 0;
        for (int i = 0; i < all.length; i++) {
          if (all[i] == 0) {
            cmdline.add(Arrays.copyOfRange(all, start, i));
            start = i + 1;
          }
        }
      }
    } catch (IOException e) {
      cmdline.clear(); // no /proc: the decoded text
    }
    String jnu = System.getProperty("sun.jnu.encoding");
    Charset charset =
        jnu != null && Charset.isSupported(jnu) ? Charset.forName(jnu) : Charset.defaultCharset();
    return match(words, cmdline, charset);
  }

  /**
   * For each word, the last not yet taken {@code cmdline} entry before the next word's that decodes
   * to it (the words are the command line's last arguments but for the flags between them, in
   * order); a word without one is its UTF-8.
   */
  static List<byte[]> match(List<String> words, List<byte[]> cmdline, Charset charset) {
    byte[][] out = new byte[words.size()][];
    int end = cmdline.size();
    for (int w = words.size() - 1; w >= 0; w--) {
      String word = words.get(w);
      out[w] = word.getBytes(StandardCharsets.UTF_8);
      for (int i = end - 1; i >= 0; i--) {
        if (new String(cmdline.get(i), charset).equals(word)) {
          out[w] = cmdline.get(i);
          end = i;
          break;
        }
      }
    }
    return Arrays.asList(out);
  }
}
