package dev.inboxoutbox.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * docs/test-kit.md's dependency snippet is what a new application copies: it must build as shown,
 * so it imports the BOM, has the kit and the dev stack in scope test, and names the Spring Boot
 * version this repository builds and tests with.
 */
class TestKitDocsTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void theDependencySnippetIsCompleteAndNamesTheBootVersionOfTheBuild() throws Exception {
    Document snippet = firstXmlBlock(ROOT.resolve("docs/test-kit.md"));

    assertThat(dependencies(snippet, "import"))
        .as("the BOM imported in dependencyManagement")
        .contains("dev.inboxoutbox:inbox-outbox-bom");
    assertThat(dependencies(snippet, "test"))
        .as("dependencies in scope test")
        .contains("dev.inboxoutbox:inbox-outbox-test", "dev.inboxoutbox:dev-stack");
    assertThat(text(snippet, "parent", "artifactId")).isEqualTo("spring-boot-starter-parent");
    assertThat(text(snippet, "parent", "version")).isEqualTo(bootVersionOfTheBuild());
  }

  private static Document firstXmlBlock(Path page) throws Exception {
    List<String> lines = Files.readAllLines(page);
    int start = lines.indexOf("```xml");
    assertThat(start).as("an xml block in %s", page).isNotNegative();
    List<String> block = new ArrayList<>();
    for (int i = start + 1; !lines.get(i).startsWith("```"); i++) {
      block.add(lines.get(i));
    }
    // A pom fragment: several top-level elements, wrapped to parse as one document.
    String xml = "<project>" + String.join("\n", block) + "</project>";
    return DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(new InputSource(new StringReader(xml)));
  }

  /** groupId:artifactId of every dependency of {@code scope}. */
  private static List<String> dependencies(Document pom, String scope) {
    List<String> found = new ArrayList<>();
    NodeList dependencies = pom.getElementsByTagName("dependency");
    for (int i = 0; i < dependencies.getLength(); i++) {
      Element dependency = (Element) dependencies.item(i);
      if (scope.equals(child(dependency, "scope"))) {
        found.add(child(dependency, "groupId") + ":" + child(dependency, "artifactId"));
      }
    }
    return found;
  }

  private static String text(Document pom, String parent, String name) {
    NodeList parents = pom.getElementsByTagName(parent);
    assertThat(parents.getLength()).as("a <%s> in the snippet", parent).isPositive();
    return child((Element) parents.item(0), name);
  }

  private static String child(Element element, String name) {
    NodeList children = element.getElementsByTagName(name);
    return children.getLength() == 0 ? null : children.item(0).getTextContent().strip();
  }

  private static String bootVersionOfTheBuild() throws IOException {
    Matcher version =
        Pattern.compile("<spring-boot.version>([^<]+)</spring-boot.version>")
            .matcher(Files.readString(ROOT.resolve("pom.xml")));
    assertThat(version.find()).as("spring-boot.version in the root pom").isTrue();
    return version.group(1);
  }
}
