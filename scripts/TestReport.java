import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What scripts/test prints at its end, read from the Surefire and Failsafe XML reports under each module's
 * target/ (CI runs on a clean clone, so every report is this run's): time and counts per suite, the 15 slowest
 * test classes, every test that failed once and passed on its rerun (a flake: most of ours were real bugs), and
 * one closing line of totals. Run as a single source file, no build needed:
 * {@code java scripts/TestReport.java [--allowed-reruns FILE] ROOT...}. With {@code --allowed-reruns} it exits 1 when a
 * test needed a rerun and the file does not list it: a rerun that passes would hide a race from everyone.
 */
public final class TestReport {
    /** One test class's report file. */
    record Suite(String suite, String name, double seconds, int tests, int failures, int errors, int skipped,
                 List<String> flaky) {
    }

    public static void main(String[] args) throws Exception {
        List<Suite> suites = new ArrayList<>();
        List<String> roots = new ArrayList<>(List.of(args));
        AllowedReruns allowed = null;
        if (roots.size() >= 2 && roots.get(0).equals("--allowed-reruns")) {
            try {
                allowed = AllowedReruns.read(Path.of(roots.get(1)));
            } catch (IOException e) {
                System.out.println("test report: cannot read " + roots.get(1) + " (" + e.getClass().getSimpleName() + ")");
                System.exit(2);
            } catch (IllegalArgumentException e) {
                System.out.println("test report: " + e.getMessage());
                System.exit(2);
            }
            roots = roots.subList(2, roots.size());
        }
        for (String root : roots.isEmpty() ? List.of(".") : roots) {
            try (Stream<Path> dirs = Files.walk(Path.of(root), 6)) {
                for (Path dir : dirs.filter(TestReport::isReportDir).sorted().collect(Collectors.toList())) {
                    suites.addAll(read(dir, Path.of(root)));
                }
            }
        }
        if (suites.isEmpty()) {
            System.out.println("test report: no Surefire or Failsafe reports found");
            return;
        }
        Map<String, List<Suite>> bySuite = new LinkedHashMap<>();
        for (Suite s : suites) {
            bySuite.computeIfAbsent(s.suite(), k -> new ArrayList<>()).add(s);
        }
        System.out.println();
        System.out.println("Test time per suite (the sum of its classes' times; each suite runs its classes one at a time)");
        System.out.printf(Locale.ROOT, "%-58s %9s %6s %6s %6s %6s%n", "suite", "time", "tests", "failed", "skipped", "flaky");
        for (Map.Entry<String, List<Suite>> e : bySuite.entrySet()) {
            List<Suite> ss = e.getValue();
            System.out.printf(Locale.ROOT, "%-58s %9s %6d %6d %6d %6d%n", e.getKey(), minutes(sum(ss, Suite::seconds)),
                (int) sum(ss, s -> s.tests()), (int) sum(ss, s -> s.failures() + s.errors()), (int) sum(ss, s -> s.skipped()),
                ss.stream().mapToInt(s -> s.flaky().size()).sum());
        }
        System.out.println();
        System.out.println("The 15 slowest test classes");
        suites.stream().sorted(Comparator.comparingDouble(Suite::seconds).reversed()).limit(15).forEach(s ->
            System.out.printf(Locale.ROOT, "%9s  %-60s %s%n", minutes(s.seconds()), s.name(), s.suite()));
        List<String> flaky = suites.stream().flatMap(s -> s.flaky().stream().map(t -> s.suite() + ": " + t)).toList();
        System.out.println();
        if (flaky.isEmpty()) {
            System.out.println("No test needed a rerun.");
        } else {
            System.out.println("Tests that failed and passed on their rerun (" + flaky.size() + "): each is a bug to find");
            flaky.forEach(f -> System.out.println("  " + f));
        }
        List<String> unlisted = allowed == null ? List.of() : allowed.unlisted(suites.stream()
            .flatMap(s -> s.flaky().stream()).toList());
        if (!unlisted.isEmpty()) {
            System.out.println();
            System.out.println("FAILED: " + unlisted.size() + " test(s) needed a rerun and are not in " + allowed.file()
                + " (each entry names the test, its issue and why): " + String.join(", ", unlisted));
        }
        int tests = (int) sum(suites, s -> s.tests());
        int failed = (int) sum(suites, s -> s.failures() + s.errors());
        int skipped = (int) sum(suites, s -> s.skipped());
        System.out.println();
        System.out.println("tests: " + (tests - failed - skipped) + " passed, " + failed + " failed, " + skipped + " skipped");
        if (!unlisted.isEmpty()) {
            System.exit(1);
        }
    }

    /**
     * The tests allowed a rerun, one a line: {@code Class.method issue-N reason}. A test's reported name (with its
     * parameters, {@code method(Path)[2]}) matches the entry that is its class and method.
     */
    record AllowedReruns(Path file, List<String> tests) {
        static AllowedReruns read(Path file) throws IOException {
            List<String> tests = new ArrayList<>();
            for (String line : Files.readAllLines(file)) {
                String t = line.strip();
                if (t.isEmpty() || t.startsWith("#")) {
                    continue;
                }
                String[] parts = t.split("\\s+", 3);
                if (parts.length < 3 || !parts[1].matches("issue-[0-9]+")) {
                    throw new IllegalArgumentException(file + ": an entry is 'Class.method issue-N reason', not: " + t);
                }
                tests.add(parts[0]);
            }
            return new AllowedReruns(file, tests);
        }

        List<String> unlisted(List<String> flaky) {
            return flaky.stream().filter(f -> tests.stream().noneMatch(a -> f.equals(a)
                || f.startsWith(a) && (f.charAt(a.length()) == '(' || f.charAt(a.length()) == '['))).toList();
        }
    }

    private static boolean isReportDir(Path p) {
        String name = p.getFileName() == null ? "" : p.getFileName().toString();
        return Files.isDirectory(p) && (name.equals("surefire-reports") || name.equals("failsafe-reports"))
            && p.getParent() != null && p.getParent().getFileName().toString().equals("target");
    }

    private static List<Suite> read(Path dir, Path root) throws Exception {
        String module = root.toAbsolutePath().normalize().relativize(dir.getParent().getParent().toAbsolutePath().normalize())
            .toString();
        String suite = (module.isEmpty() ? "." : module) + " "
            + (dir.getFileName().toString().startsWith("failsafe") ? "failsafe (integration)" : "surefire (unit)");
        List<Suite> out = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(f -> f.getFileName().toString().matches("TEST-.*\\.xml")).sorted().toList();
        }
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        for (Path f : files) {
            Document doc;
            try {
                doc = factory.newDocumentBuilder().parse(f.toFile());
            } catch (IOException | org.xml.sax.SAXException e) {
                System.out.println("test report: unreadable " + f + " (" + e.getMessage() + ")");
                continue;
            }
            Element s = doc.getDocumentElement();
            // an execution's reportNameSuffix names it apart from the module's default one: Failsafe writes it into
            // the suite's name, "Class(containers)", and the file's, TEST-Class-containers.xml
            String name = s.getAttribute("name");
            String execution = "";
            if (name.endsWith(")") && name.indexOf('(') > 0) {
                execution = " " + name.substring(name.indexOf('(') + 1, name.length() - 1);
                name = name.substring(0, name.indexOf('('));
            }
            List<String> flaky = new ArrayList<>();
            NodeList cases = s.getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element c = (Element) cases.item(i);
                if (c.getElementsByTagName("flakyFailure").getLength() + c.getElementsByTagName("flakyError").getLength() > 0) {
                    flaky.add(c.getAttribute("classname") + "." + c.getAttribute("name"));
                }
            }
            out.add(new Suite(suite + execution, name, number(s, "time"), (int) number(s, "tests"),
                (int) number(s, "failures"), (int) number(s, "errors"), (int) number(s, "skipped"), flaky));
        }
        return out;
    }

    private static double number(Element e, String attribute) {
        String v = e.getAttribute(attribute).replace(",", "");
        return v.isEmpty() ? 0 : Double.parseDouble(v);
    }

    private static double sum(List<Suite> suites, java.util.function.ToDoubleFunction<Suite> f) {
        return suites.stream().mapToDouble(f).sum();
    }

    private static String minutes(double seconds) {
        long s = Math.round(seconds);
        return s < 60 ? s + " s" : String.format(Locale.ROOT, "%d:%02d min", s / 60, s % 60);
    }
}
