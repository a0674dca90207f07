import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.stream.Stream;

/**
 * The JRE's trust store from the PEM certificates of Debian's ca-certificates, as
 * ca-certificates-java builds it when the package is installed (no JVM runs in the image build):
 * PKCS#12 without a password or a MAC, as the JDK's own cacerts, so no trustStorePassword is needed.
 *
 * <p>Run with the source launcher: {@code java CaCerts.java CERTIFICATE_DIR OUTPUT_FILE}.
 */
public class CaCerts {
  public static void main(String[] args) throws Exception {
    System.setProperty("keystore.pkcs12.certProtectionAlgorithm", "NONE");
    System.setProperty("keystore.pkcs12.macAlgorithm", "NONE");
    List<Path> certificates;
    try (Stream<Path> files = Files.walk(Path.of(args[0]))) {
      certificates = files.filter(f -> f.toString().endsWith(".crt")).sorted().toList();
    }
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    for (Path file : certificates) {
      try (InputStream in = Files.newInputStream(file)) {
        X509Certificate certificate = (X509Certificate) x509.generateCertificate(in);
        String alias = file.getFileName().toString().replaceFirst("\\.crt$", "").toLowerCase();
        store.setCertificateEntry("debian:" + alias, certificate);
      }
    }
    if (certificates.isEmpty()) {
      throw new IllegalStateException("no certificates under " + args[0]);
    }
    try (OutputStream out = Files.newOutputStream(Path.of(args[1]))) {
      store.store(out, new char[0]);
    }
    System.out.println("container-base: " + certificates.size() + " CA certificates in " + args[1]);
  }
}
