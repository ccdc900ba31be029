package io.stallscope.it.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.HashSet;
import java.util.Set;

/** Free TCP ports on 127.0.0.1, never handing out the same port twice in one JVM. */
public final class FreePorts {

    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    private FreePorts() {
    }

    public static synchronized int next() {
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new InetSocketAddress(InetAddress.getByName(BrokerConfigs.HOST), 0));
                int port = s.getLocalPort();
                if (HANDED_OUT.add(port)) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot bind a free port on " + BrokerConfigs.HOST, e);
            }
        }
        throw new IllegalStateException("no fresh free port on " + BrokerConfigs.HOST);
    }

    /** True if something accepts connections on 127.0.0.1:port. */
    public static boolean isListening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(BrokerConfigs.HOST, port), 250);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
