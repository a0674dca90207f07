package dev.inboxoutbox.consumerbuilds;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * inbox-outbox-bom has no parent, so it names its third-party versions itself: each must be the
 * version this build resolves, from the parent pom's properties or, for what the parent leaves to
 * it, Spring Boot's BOM. A version bumped in the parent alone fails here.
 */
class BomVersionsTest {

  private static final Path ROOT = Path.of(System.getProperty("basedir", ".")).resolve("..");

  @Test
  void everyVersionTheBomNamesIsTheOneTheBuildResolves() throws Exception {
    Map<String, String> bom = properties(ROOT.resolve("inbox-outbox-bom/pom.xml"));
    Map<String, String> parent = properties(ROOT.resolve("pom.xml"));
    Map<String, String> springBoot = properties(Path.of(System.getProperty("spring-boot.bom")));

    Map<String, String> resolved = new LinkedHashMap<>();
    bom.keySet()
        .forEach(
            name -> {
              String version = parent.getOrDefault(name, springBoot.get(name));
              resolved.put(
                  name, version == null ? "(neither the parent nor Spring Boot)" : version);
            });
    assertThat(bom).as("inbox-outbox-bom's versions").isNotEmpty().isEqualTo(resolved);
  }

  @Test
  void theBomManagesTheVersionsItDeclares() throws Exception {
    String bom = Files.readString(ROOT.resolve("inbox-outbox-bom/pom.xml"));
    properties(ROOT.resolve("inbox-outbox-bom/pom.xml"))
        .keySet()
        .forEach(name -> assertThat(bom).as("a use of %s", name).contains("${" + name + "}"));
  }

  private static Map<String, String> properties(Path pom) throws Exception {
    Element project =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(pom.toFile())
            .getDocumentElement();
    Map<String, String> properties = new LinkedHashMap<>();
    NodeList sections = project.getElementsByTagName("properties");
    for (int s = 0; s < sections.getLength(); s++) {
      if (sections.item(s).getParentNode() != project) {
        continue; // a profile's properties
      }
      NodeList children = sections.item(s).getChildNodes();
      for (int i = 0; i < children.getLength(); i++) {
        if (children.item(i).getNodeType() == Node.ELEMENT_NODE) {
          properties.put(children.item(i).getNodeName(), children.item(i).getTextContent().strip());
        }
      }
    }
    return properties;
  }
}
