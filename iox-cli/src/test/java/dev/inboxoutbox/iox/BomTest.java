package dev.inboxoutbox.iox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * inbox-outbox-bom, which has no parent and so its own version, stays at the project's version and
 * lists exactly the library modules among its own group's entries: those that attach a sources jar
 * (they name maven-source-plugin in their build, docs/images-and-coordinates.md).
 */
class BomTest {

  @Test
  void theBomHasTheProjectVersionAndListsEveryLibraryModule() throws Exception {
    Element parent = read(Repository.ROOT.resolve("pom.xml"));
    Element bom = read(Repository.ROOT.resolve("inbox-outbox-bom/pom.xml"));
    assertThat(text(bom, "version")).isEqualTo(text(parent, "version"));

    Set<String> managed = new TreeSet<>();
    Element management = child(bom, "dependencyManagement");
    for (Element dependency : children(child(management, "dependencies"), "dependency")) {
      // Third-party entries (what the modules run with) are compared with the parent's versions by
      // consumer-builds' BomVersionsTest.
      if (!text(dependency, "groupId").equals("dev.inboxoutbox")) {
        continue;
      }
      assertThat(text(dependency, "version")).isEqualTo("${project.version}");
      managed.add(text(dependency, "artifactId"));
    }

    Set<String> libraries = new TreeSet<>();
    for (Element module : children(child(parent, "modules"), "module")) {
      Path pom = Repository.ROOT.resolve(module.getTextContent().trim()).resolve("pom.xml");
      if (Files.readString(pom).contains("<artifactId>maven-source-plugin</artifactId>")) {
        libraries.add(text(read(pom), "artifactId"));
      }
    }
    assertThat(libraries).as("modules that attach a sources jar").isNotEmpty();
    assertThat(managed).as("artifacts inbox-outbox-bom manages").isEqualTo(libraries);
  }

  private static Element read(Path pom) throws Exception {
    Document document =
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    return document.getDocumentElement();
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element element && element.getTagName().equals(name)) {
        found.add(element);
      }
    }
    return found;
  }

  private static Element child(Element parent, String name) {
    List<Element> found = children(parent, name);
    assertThat(found).as("<%s> in <%s>", name, parent.getTagName()).hasSize(1);
    return found.get(0);
  }

  private static String text(Element parent, String name) {
    return child(parent, name).getTextContent().trim();
  }
}
