package io.stallscope.it.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A self-signed PKCS12 keystore for 127.0.0.1/localhost and a truststore holding its certificate, made with keytool. */
public final class SelfSignedTls {

    private SelfSignedTls() {
    }

    public static BrokerConfigs.Tls create(Path javaHome, Path dir, String password) {
        try {
            Files.createDirectories(dir);
            Path keyStore = dir.resolve("broker.keystore.p12");
            Path trustStore = dir.resolve("client.truststore.p12");
            Path cert = dir.resolve("broker.crt");
            Files.deleteIfExists(keyStore);
            Files.deleteIfExists(trustStore);
            String keytool = javaHome.resolve("bin/keytool").toString();
            run(dir, keytool, "-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048",
                    "-dname", "CN=localhost", "-ext", "SAN=IP:127.0.0.1,DNS:localhost", "-validity", "365",
                    "-storetype", "PKCS12", "-keystore", keyStore.toString(), "-storepass", password, "-keypass", password);
            run(dir, keytool, "-exportcert", "-rfc", "-alias", "broker", "-keystore", keyStore.toString(),
                    "-storepass", password, "-file", cert.toString());
            run(dir, keytool, "-importcert", "-noprompt", "-alias", "broker", "-file", cert.toString(),
                    "-storetype", "PKCS12", "-keystore", trustStore.toString(), "-storepass", password);
            return new BrokerConfigs.Tls(keyStore, trustStore, password);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create TLS material in " + dir, e);
        }
    }

    private static void run(Path dir, String... cmd) throws IOException {
        Path out = dir.resolve("keytool.out");
        Process p = new ProcessBuilder(new ArrayList<>(List.of(cmd))).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile())).start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("keytool failed: " + String.join(" ", cmd) + "\n" + Files.readString(out));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
