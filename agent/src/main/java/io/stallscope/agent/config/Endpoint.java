package io.stallscope.agent.config;

/**
 * Where the Prometheus endpoint listens. A bare port binds to loopback: the endpoint is only
 * exposed wider when the operator names an address.
 */
public final class Endpoint {
    public static final Endpoint OFF = new Endpoint(null, -1);

    private final String host;
    private final int port;

    private Endpoint(String host, int port) {
        this.host = host;
        this.port = port;
    }

    static Endpoint parse(String v) {
        if (v.equalsIgnoreCase("off") || v.equalsIgnoreCase("false")) {
            return OFF;
        }
        String host = "127.0.0.1";
        String port = v;
        int colon = v.lastIndexOf(':');
        if (colon >= 0) {
            host = v.substring(0, colon);
            port = v.substring(colon + 1);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            if (host.isEmpty()) {
                throw new IllegalArgumentException("expected HOST:PORT, PORT or off");
            }
        }
        try {
            int p = Integer.parseInt(port);
            if (p >= 0 && p <= 65535) {
                return new Endpoint(host, p);
            }
        } catch (NumberFormatException ignored) {
            // one message below
        }
        throw new IllegalArgumentException("expected HOST:PORT, PORT or off");
    }

    public boolean enabled() {
        return port >= 0;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    @Override
    public String toString() {
        return enabled() ? host + ":" + port : "off";
    }
}
