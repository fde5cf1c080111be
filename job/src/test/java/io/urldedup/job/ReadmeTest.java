package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's flag list is the {@code --help} text, verbatim. */
class ReadmeTest {

  @Test
  void readmeListsTheFlagsAsHelpDoes() throws Exception {
    Path readme = Path.of("..", "README.md");
    String text = Files.readString(readme, StandardCharsets.UTF_8);
    assertTrue(
        text.contains(HelpText.render()),
        "README.md's flag section differs from ./urldedup help: paste the output of ./urldedup help");
    assertTrue(text.contains("./urldedup run --input samples/urls.txt --output -"), "quickstart");
    assertTrue(text.contains("mvn -B -ntp verify"), "test command");
  }
}
