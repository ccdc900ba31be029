package io.stallscope.it.examples;

import io.stallscope.it.agent.AgentJar;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The deployment examples parse, refer to files that exist, and carry an agent option string that the
 * agent's own parser (from the shaded jar) accepts, with the endpoint each example's Prometheus scrapes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExampleFilesTest {
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Pattern COMPOSE_VARIABLE = Pattern.compile("\\$\\{([A-Z_]+):-([^}]*)}");
    private AgentOptionParser parser;

    @BeforeAll
    void loadParser() throws Exception {
        parser = new AgentOptionParser(AgentJar.path());
    }

    @AfterAll
    void closeParser() throws Exception {
        parser.close();
    }

    @Test
    void parserRejectsWhatTheAgentWouldRefuse() throws Exception {
        // the check below is only worth something if a bad option string fails it
        assertThat(parser.parse("prometheus=127.0.0.1:9405").prometheus()).isEqualTo("127.0.0.1:9405");
        assertThat(parser.parse("prometheus=9405").prometheus()).isEqualTo("127.0.0.1:9405");
        assertThat(parser.parse("promethus=9405").error()).contains("did you mean 'prometheus'");
        assertThat(parser.parse("prometheus=0.0.0.0:99999").error()).contains("prometheus");
    }

    @Test
    void plainKafkaOptsSnippetSetsTheAgentOnLoopback() throws Exception {
        Path jar = AgentJar.path();
        String opts = kafkaOptsFromSnippet(jar, "");
        JavaAgentOption agent = JavaAgentOption.single("stallscope.env.sh", opts);
        assertThat(agent.jar()).isEqualTo(jar.toString());
        assertThat(parser.parse(agent.options()).prometheus()).isEqualTo("127.0.0.1:9405");
        // an operator's existing KAFKA_OPTS is kept, and sourcing the snippet again adds nothing
        assertThat(kafkaOptsFromSnippet(jar, "-Xss1m")).isEqualTo("-Xss1m " + opts);
        assertThat(kafkaOptsFromSnippet(jar, opts)).isEqualTo(opts);
        assertThat(kafkaOptsFromSnippet(jar, "-Xss1m " + opts + " -Dx=1")).isEqualTo("-Xss1m " + opts + " -Dx=1");
        // without STALLSCOPE_HOME: the path the other examples use
        assertThat(JavaAgentOption.single("default", kafkaOptsFromSnippet(null, "")).jar())
            .isEqualTo("/opt/stallscope/stallscope-agent.jar");
    }

    /** Sources the snippet in bash, as an operator does, and prints the KAFKA_OPTS it leaves (jar null: no STALLSCOPE_HOME). */
    static String kafkaOptsFromSnippet(Path jar, String existing) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", ". \"$1\" && printf %s \"$KAFKA_OPTS\"", "snippet",
            Examples.file("plain/stallscope.env.sh").toString());
        pb.environment().remove("STALLSCOPE_HOME");
        if (jar != null) {
            pb.environment().put("STALLSCOPE_HOME", jar.getParent().toString());
        }
        pb.environment().remove("KAFKA_OPTS");
        if (!existing.isEmpty()) {
            pb.environment().put("KAFKA_OPTS", existing);
        }
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    @Test
    void systemdDropInSetsKafkaOptsInTheServiceSection() throws Exception {
        List<String> lines = Files.readAllLines(Examples.file("systemd/kafka.service.d/stallscope.conf"));
        List<String> settings = lines.stream().map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        assertThat(settings.get(0)).isEqualTo("[Service]");
        List<String> env = settings.stream().filter(l -> l.startsWith("Environment=")).toList();
        assertThat(env).hasSize(1);
        // systemd: Environment="VAR=value with spaces"; the whole assignment is one quoted word
        String assignment = env.get(0).substring("Environment=".length());
        assertThat(assignment).startsWith("\"KAFKA_OPTS=").endsWith("\"");
        JavaAgentOption agent = JavaAgentOption.single("stallscope.conf", assignment);
        assertThat(agent.jar()).isEqualTo("/opt/stallscope/stallscope-agent.jar");
        assertThat(parser.parse(agent.options()).prometheus()).isEqualTo("127.0.0.1:9405");
    }

    @Test
    void composeMountsTheAgentAndWiresPrometheusAndGrafana() throws Exception {
        Path composeFile = Examples.file("compose/compose.yaml");
        Path dir = composeFile.getParent();
        JsonNode services = YAML.readTree(composeFile.toFile()).path("services");
        assertThat(services.fieldNames()).toIterable().contains("kafka", "prometheus", "grafana");

        JsonNode kafka = services.path("kafka");
        assertThat(kafka.path("image").asText()).matches("apache/kafka:\\$\\{KAFKA_VERSION:-(3\\.(7|8|9)|4\\.\\d+)\\.\\d+}");
        JavaAgentOption agent = JavaAgentOption.single("compose kafka", kafka.path("environment").path("KAFKA_OPTS").asText());
        AgentOptionParser.Result parsed = parser.parse(agent.options());
        assertThat(parsed.error()).isNull();
        assertThat(parsed.ignored()).as("options the agent would ignore").isEmpty();
        JsonNode jarMount = mountAt(kafka, agent.jar());
        assertThat(jarMount.path("read_only").asBoolean()).as("agent jar mounted read-only").isTrue();
        assertThat(hostPath(dir, jarMount.path("source").asText())).isEqualTo(AgentJar.path());

        JsonNode prometheus = services.path("prometheus");
        Path promConfig = hostPath(dir, mountAt(prometheus, "/etc/prometheus/prometheus.yml").path("source").asText());
        JsonNode config = YAML.readTree(promConfig.toFile());
        String rulesInContainer = config.path("rule_files").get(0).asText();
        assertThat(hostPath(dir, mountAt(prometheus, rulesInContainer).path("source").asText()))
            .isEqualTo(Examples.file(ExampleQueries.RULES));
        String target = config.path("scrape_configs").get(0).path("static_configs").get(0).path("targets").get(0).asText();
        int agentPort = Integer.parseInt(parsed.prometheus().substring(parsed.prometheus().lastIndexOf(':') + 1));
        assertThat(target).isEqualTo(kafka.path("hostname").asText() + ":" + agentPort);
        assertThat(parsed.prometheus()).as("reachable from the Prometheus container").startsWith("0.0.0.0:");
        assertThat(kafka.has("ports")).as("the agent's port is not published to the host").isFalse();

        JsonNode grafana = services.path("grafana");
        Path provisioning = hostPath(dir, mountAt(grafana, "/etc/grafana/provisioning").path("source").asText());
        JsonNode provider = YAML.readTree(provisioning.resolve("dashboards/stallscope.yaml").toFile()).path("providers").get(0);
        String dashboardsInContainer = provider.path("options").path("path").asText();
        Path dashboards = hostPath(dir, mountAt(grafana, dashboardsInContainer).path("source").asText());
        assertThat(dashboards.resolve("stallscope.json")).isEqualTo(Examples.file(ExampleQueries.DASHBOARD));
        JsonNode datasource = YAML.readTree(provisioning.resolve("datasources/stallscope-prometheus.yaml").toFile())
            .path("datasources").get(0);
        assertThat(datasource.path("url").asText()).isEqualTo("http://prometheus:9090");
        JsonNode dashboard = new ObjectMapper().readTree(dashboards.resolve("stallscope.json").toFile());
        List<String> uids = new ArrayList<>();
        dashboard.findValues("datasource").forEach(d -> {
            if (d.path("type").asText().equals("prometheus")) {
                uids.add(d.path("uid").asText());
            }
        });
        // every query goes to the dashboard's datasource variable, which defaults to the provisioned datasource
        // (and on import into another Grafana offers that one's Prometheus datasources)
        assertThat(uids).isNotEmpty().allMatch(u -> u.equals("${datasource}"));
        JsonNode variable = null;
        for (JsonNode v : dashboard.path("templating").path("list")) {
            if (v.path("name").asText().equals("datasource")) {
                variable = v;
            }
        }
        assertThat(variable).as("a datasource variable").isNotNull();
        assertThat(variable.path("type").asText()).isEqualTo("datasource");
        assertThat(variable.path("query").asText()).isEqualTo("prometheus");
        assertThat(variable.path("current").path("value").asText()).isEqualTo(datasource.path("uid").asText());
        assertThat(grafana.path("environment").path("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH").asText())
            .isEqualTo(dashboardsInContainer + "/stallscope.json");
        for (JsonNode port : List.of(prometheus.path("ports").get(0), grafana.path("ports").get(0))) {
            assertThat(port.asText()).as("published on loopback only").startsWith("127.0.0.1:");
        }
    }

    /** The volume of a compose service mounted at {@code target} (long syntax). */
    private static JsonNode mountAt(JsonNode service, String target) {
        for (JsonNode v : service.path("volumes")) {
            if (v.path("target").asText().equals(target)) {
                return v;
            }
        }
        throw new AssertionError("no volume mounted at " + target + " in " + service);
    }

    /** A compose source path with ${VAR:-default} filled in by its default, relative to the compose file. */
    private static Path hostPath(Path composeDir, String source) {
        Matcher m = COMPOSE_VARIABLE.matcher(source);
        String path = m.replaceAll(r -> Matcher.quoteReplacement(r.group(2)));
        Path p = composeDir.resolve(path).toAbsolutePath().normalize();
        assertThat(p).as("compose source " + source).exists();
        return p;
    }

    @Test
    void strimziResourcesCarryTheAgentThroughJavaToolOptions() throws Exception {
        List<JsonNode> docs = new ArrayList<>();
        try (var parser = YAML.getFactory().createParser(Examples.file("strimzi/kafka.yaml").toFile())) {
            YAML.readValues(parser, JsonNode.class).forEachRemaining(docs::add);
        }
        JsonNode kafka = docs.stream().filter(d -> d.path("kind").asText().equals("Kafka")).findFirst().orElseThrow();
        JsonNode pool = docs.stream().filter(d -> d.path("kind").asText().equals("KafkaNodePool")).findFirst().orElseThrow();
        for (JsonNode d : docs) {
            assertThat(d.path("apiVersion").asText()).isEqualTo("kafka.strimzi.io/v1beta2");
        }
        assertThat(pool.path("metadata").path("labels").path("strimzi.io/cluster").asText())
            .isEqualTo(kafka.path("metadata").path("name").asText());
        assertThat(pool.path("spec").path("roles").toString()).contains("broker");

        JsonNode spec = kafka.path("spec").path("kafka");
        List<JsonNode> env = new ArrayList<>();
        spec.path("template").path("kafkaContainer").path("env").forEach(env::add);
        // Strimzi ignores variables it sets itself, and keeps KAFKA_* to itself
        assertThat(env).noneMatch(e -> e.path("name").asText().startsWith("KAFKA_"));
        JsonNode toolOptions = env.stream().filter(e -> e.path("name").asText().equals("JAVA_TOOL_OPTIONS")).findFirst()
            .orElseThrow();
        JavaAgentOption agent = JavaAgentOption.single("strimzi JAVA_TOOL_OPTIONS", toolOptions.path("value").asText());
        AgentOptionParser.Result parsed = parser.parse(agent.options());
        assertThat(parsed.error()).isNull();
        assertThat(parsed.ignored()).as("options the agent would ignore").isEmpty();
        assertThat(parsed.prometheus()).as("the agent's port in every example, beside Strimzi's JMX exporter on 9404").isEqualTo("0.0.0.0:9405");

        // the image named in the resource is built by the Dockerfile, which puts the jar where the option says
        String dockerfile = Files.readString(Examples.file("strimzi/Dockerfile"));
        Matcher copy = Pattern.compile("(?m)^COPY\\s+(?:--\\S+\\s+)*(\\S+)\\s+(\\S+)\\s*$").matcher(dockerfile);
        assertThat(copy.find()).as("a COPY line in the Dockerfile").isTrue();
        assertThat(Examples.root().resolve(copy.group(1)).normalize()).isEqualTo(AgentJar.path());
        assertThat(copy.group(2)).isEqualTo(agent.jar());
        assertThat(dockerfile).contains("FROM ${STRIMZI_KAFKA_IMAGE}").containsPattern("quay.io/strimzi/kafka:[0-9.]+-kafka-"
            + Pattern.quote(spec.path("version").asText()));
        assertThat(spec.path("image").asText()).endsWith("-kafka-" + spec.path("version").asText());

        // the scrape job for it keeps the cluster's Kafka pods and points at the agent's port
        JsonNode job = YAML.readTree(Examples.file("strimzi/prometheus.yml").toFile()).path("scrape_configs").get(0);
        String relabel = job.path("relabel_configs").toString();
        assertThat(relabel).contains("Kafka;" + kafka.path("metadata").path("name").asText()).contains("${1}:9405");
        assertThat(Examples.root().resolve("examples/strimzi").resolve("../prometheus/stallscope-alerts.yml").normalize())
            .isEqualTo(Examples.file(ExampleQueries.RULES));
    }

    @Test
    void dashboardPanelsAreWellFormed() throws Exception {
        JsonNode dash = new ObjectMapper().readTree(Examples.file(ExampleQueries.DASHBOARD).toFile());
        assertThat(dash.path("uid").asText()).isNotBlank();
        Set<Integer> ids = new HashSet<>();
        for (JsonNode p : dash.path("panels")) {
            String title = p.path("title").asText();
            assertThat(ids.add(p.path("id").asInt())).as("unique panel id: " + title).isTrue();
            JsonNode pos = p.path("gridPos");
            assertThat(pos.path("x").asInt() + pos.path("w").asInt()).as(title + " fits the 24-column grid").isLessThanOrEqualTo(24);
            if (p.path("type").asText().equals("row")) {
                continue;
            }
            assertThat(p.path("description").asText()).as(title + " says what it shows").isNotBlank();
            Set<String> refIds = new HashSet<>();
            assertThat(p.path("targets").size()).as(title + " has queries").isPositive();
            for (JsonNode t : p.path("targets")) {
                assertThat(refIds.add(t.path("refId").asText())).as(title + " unique refId").isTrue();
            }
        }
    }

    /** A broker's trouble must stay that broker's: every aggregation keeps instance, every legend names it. */
    @Test
    void everyPanelKeepsTheInstance() throws Exception {
        java.util.regex.Pattern aggregation = java.util.regex.Pattern.compile(
            "\\b(sum|max|min|avg|count|topk|bottomk|quantile)\\s*(by\\s*\\(([^)]*)\\))?\\s*\\(");
        for (ExampleQueries.Query q : ExampleQueries.dashboard()) {
            if (q.where().contains("variable")) {
                continue;
            }
            java.util.regex.Matcher m = aggregation.matcher(q.expr());
            while (m.find()) {
                assertThat(m.group(3)).as(q.where() + ": " + m.group() + " in " + q.expr()).isNotNull()
                    .matches(".*\\binstance\\b.*");
            }
            assertThat(q.legend()).as(q.where() + " legend").contains("{{instance}}");
        }
    }

    @Test
    void strimziPodMonitorScrapesTheClustersKafkaPodsOnTheAgentsPort() throws Exception {
        JsonNode monitor = YAML.readTree(Examples.file("strimzi/podmonitor.yaml").toFile());
        assertThat(monitor.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(monitor.path("kind").asText()).isEqualTo("PodMonitor");
        JsonNode labels = monitor.path("spec").path("selector").path("matchLabels");
        assertThat(labels.path("strimzi.io/cluster").asText()).isEqualTo("my-cluster");
        assertThat(labels.path("strimzi.io/kind").asText()).isEqualTo("Kafka");
        JsonNode endpoint = monitor.path("spec").path("podMetricsEndpoints").get(0);
        assertThat(endpoint.path("path").asText()).isEqualTo("/metrics");
        assertThat(endpoint.path("relabelings").toString()).contains("__meta_kubernetes_pod_ip").contains("${1}:9405")
            .contains("__address__");
    }

    @Test
    void initContainerImageCarriesTheJarWhereThePodsOptionNamesIt() throws Exception {
        String dockerfile = Files.readString(Examples.file("image/Dockerfile"));
        Matcher copy = Pattern.compile("(?m)^COPY\\s+(?:--\\S+\\s+)*(\\S+)\\s+(\\S+)\\s*$").matcher(dockerfile);
        assertThat(copy.find()).as("a COPY line in the Dockerfile").isTrue();
        assertThat(Examples.root().resolve(copy.group(1)).normalize()).isEqualTo(AgentJar.path());
        JsonNode pod = YAML.readTree(Examples.file("image/init-container.yaml").toFile());
        JsonNode kafka = pod.path("spec").path("containers").get(0);
        JsonNode opts = StreamSupport.stream(kafka.path("env").spliterator(), false)
            .filter(e -> e.path("name").asText().equals("KAFKA_OPTS")).findFirst().orElseThrow();
        JavaAgentOption agent = JavaAgentOption.single("init-container KAFKA_OPTS", opts.path("value").asText());
        AgentOptionParser.Result parsed = parser.parse(agent.options());
        assertThat(parsed.error()).isNull();
        assertThat(parsed.ignored()).as("options the agent would ignore").isEmpty();
        assertThat(parsed.prometheus()).isEqualTo("0.0.0.0:9405");
        // the init container copies the jar to exactly where the option names it, in the volume both mount
        assertThat(dockerfile).contains("\"" + agent.jar() + "\"]");
        String mount = agent.jar().substring(0, agent.jar().lastIndexOf('/'));
        assertThat(pod.path("spec").path("initContainers").get(0).path("volumeMounts").get(0).path("mountPath").asText())
            .isEqualTo(mount);
        assertThat(kafka.path("volumeMounts").get(0).path("mountPath").asText()).isEqualTo(mount);
    }

    @Test
    void networkPoliciesAdmitOnlyPrometheusToTheAgentsPortOfTheExamplesPods() throws Exception {
        JsonNode pod = YAML.readTree(Examples.file("image/init-container.yaml").toFile());
        JsonNode podPolicy = YAML.readTree(Examples.file("image/networkpolicy.yaml").toFile());
        assertThat(selects(podPolicy, pod.path("metadata").path("labels"))).as("the policy selects the example's pod").isTrue();
        assertOnlyPrometheusOn9405(podPolicy);
        // a policy that selects a pod closes every port it does not admit: Kafka's must stay open
        Set<Integer> open = new HashSet<>();
        for (JsonNode rule : podPolicy.path("spec").path("ingress")) {
            if (rule.path("from").isMissingNode()) {
                rule.path("ports").forEach(p -> open.add(p.path("port").asInt()));
            }
        }
        assertThat(open).as("ports open to every source").containsExactlyInAnyOrder(9092, 9093).doesNotContain(9405);

        JsonNode strimziPolicy = YAML.readTree(Examples.file("strimzi/networkpolicy.yaml").toFile());
        JsonNode monitorLabels = YAML.readTree(Examples.file("strimzi/podmonitor.yaml").toFile())
            .path("spec").path("selector").path("matchLabels");
        assertThat(strimziPolicy.path("spec").path("podSelector").path("matchLabels")).as("the pods the PodMonitor scrapes")
            .isEqualTo(monitorLabels);
        assertOnlyPrometheusOn9405(strimziPolicy);
        assertThat(strimziPolicy.path("spec").path("ingress")).as("only the agent's port: Strimzi's own policy admits the rest")
            .hasSize(1);
    }

    private static boolean selects(JsonNode policy, JsonNode podLabels) {
        JsonNode wanted = policy.path("spec").path("podSelector").path("matchLabels");
        for (var e : (Iterable<java.util.Map.Entry<String, JsonNode>>) wanted::fields) {
            if (!podLabels.path(e.getKey()).asText().equals(e.getValue().asText())) {
                return false;
            }
        }
        return wanted.size() > 0;
    }

    /** Every rule that admits 9405 names Prometheus's pods in the monitoring namespace as its only source. */
    private static void assertOnlyPrometheusOn9405(JsonNode policy) {
        assertThat(policy.path("apiVersion").asText()).isEqualTo("networking.k8s.io/v1");
        assertThat(policy.path("kind").asText()).isEqualTo("NetworkPolicy");
        assertThat(policy.path("spec").path("policyTypes").toString()).contains("Ingress");
        int admitting = 0;
        for (JsonNode rule : policy.path("spec").path("ingress")) {
            boolean agentPort = false;
            for (JsonNode p : rule.path("ports")) {
                agentPort |= p.path("port").asInt() == 9405;
            }
            if (!agentPort) {
                continue;
            }
            admitting++;
            assertThat(rule.path("from")).as("sources of 9405").hasSize(1);
            JsonNode from = rule.path("from").get(0);
            assertThat(from.path("podSelector").path("matchLabels").path("app.kubernetes.io/name").asText()).isEqualTo("prometheus");
            assertThat(from.path("namespaceSelector").path("matchLabels").path("kubernetes.io/metadata.name").asText())
                .isEqualTo("monitoring");
            assertThat(from.has("ipBlock")).isFalse();
        }
        assertThat(admitting).as("rules admitting 9405").isEqualTo(1);
    }

    @Test
    void everyAlertSaysHowBadWhatItMeansAndWhereTheMitigationIs() throws Exception {
        List<ExampleQueries.Rule> rules = ExampleQueries.rules();
        assertThat(rules).extracting(ExampleQueries.Rule::expr)
            .anyMatch(e -> e.contains("op=~\"transfer_to|tls_transfer\", role=\"network\""))
            .anyMatch(e -> e.contains("stallscope_advice_errors_total"))
            .anyMatch(e -> e.contains("histogram_quantile(0.999") && e.contains("op=\"records_append\", role=\"request_handler\""))
            .anyMatch(e -> e.contains("snapshot_write") && e.contains("role=\"request_handler\""))
            .anyMatch(e -> e.contains("op=\"remote_queue_wait\", role=\"other\""))
            .anyMatch(e -> e.contains("op=~\"remote_index_load|remote_fetch\", role=\"request_handler\""));
        for (ExampleQueries.Rule r : rules) {
            assertThat(r.alert()).as("alerting rule").isNotBlank();
            assertThat(r.forDuration()).as(r.alert() + " for:").matches("\\d+[smh]");
            assertThat(r.labels()).as(r.alert()).containsKey("severity");
            assertThat(r.annotations()).as(r.alert()).containsKeys("summary", "description", "runbook_url")
                .doesNotContainKey("runbook");
            assertThat(r.annotations().get("description")).as(r.alert() + " says what to do").contains("What to do");
            // Alertmanager and Grafana link runbook_url as it is: a URL of the guide's page, whose section exists here
            String url = r.annotations().get("runbook_url");
            assertThat(url).as(r.alert() + " runbook_url").startsWith(ExampleQueries.DOCS_URL);
            String link = url.substring(ExampleQueries.DOCS_URL.length());
            assertThat(MarkdownAnchors.exists(Examples.root(), link)).as(r.alert() + " runbook_url " + url).isTrue();
        }
    }

    @Test
    void examplesReadmeListsEveryExample() throws Exception {
        String readme = Files.readString(Examples.root().resolve("examples/README.md"));
        for (String f : List.of("plain/stallscope.env.sh", "systemd/kafka.service.d/stallscope.conf", "compose/compose.yaml",
            ExampleQueries.RULES, ExampleQueries.RULE_TESTS, ExampleQueries.DASHBOARD, "strimzi/kafka.yaml", "strimzi/Dockerfile", "strimzi/prometheus.yml", "strimzi/podmonitor.yaml",
            "strimzi/networkpolicy.yaml", "image/Dockerfile", "image/init-container.yaml", "image/networkpolicy.yaml")) {
            Examples.file(f);
            assertThat(readme).as("examples/README.md mentions " + f).contains("(" + f + ")");
        }
    }
}
