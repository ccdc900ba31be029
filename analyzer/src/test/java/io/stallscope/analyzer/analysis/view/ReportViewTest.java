package io.stallscope.analyzer.analysis.view;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Analyzer;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.read.JfrFileReader;
import io.stallscope.analyzer.workload.Recorder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The view of a real recording ({@code ContentionProgram}: handlers contending on a monitor while the holder writes
 * and fsyncs): every finding points at a moment that shows it, the flame trees weigh exactly the waits, the lanes
 * are labelled apart; and the renderers take all of that from the view.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReportViewTest {
    private Analysis a;
    private ReportView v;
    private long origin;

    @BeforeAll
    void analyse() throws Exception {
        Recording rec = new Recording();
        JfrFileReader.read(Recorder.asyncProfiler("monitor"), rec, null);
        a = Analyzer.analyze(rec, Options.defaults());
        v = ReportViews.of(a);
        origin = rec.startNanos();
    }

    @Test
    void everyFindingPointsAtAMomentThatShowsIt() {
        assertThat(v.findings()).extracting(f -> f.finding().kind())
                .contains(Finding.HOLDER_IN_FILE_IO, Finding.FSYNC_ON_PRODUCE, Finding.CONTENDED_LOCKS);
        long duration = a.recording().endNanos() - origin;
        for (FindingView f : v.findings()) {
            String kind = f.finding().kind();
            assertThat(f.hasMoment()).as(kind).isTrue();
            assertThat(f.atNanos()).as(kind).isBetween(0L, duration);
            assertThat(f.threads()).as(kind).isNotEmpty().isSubsetOf(f.finding().threads());
            long at = origin + f.atNanos();
            switch (kind) {
                case Finding.CONTENDED_LOCKS -> {
                    Contention first = a.contentions().get(0);
                    assertThat(a.waits()).as("the longest wait of the most waited lock begins then")
                            .anyMatch(w -> w.start == at && w.lockKey.equals(first.key) && w.duration() == first.longestWaitNanos);
                }
                case Finding.HOLDER_IN_FILE_IO -> assertThat(a.waits()).as("a wait behind a holder in a storage call begins then")
                        .anyMatch(w -> w.start == at && w.holder != null && w.holder.op().storage());
                case Finding.FSYNC_ON_PRODUCE, Finding.NETWORK_THREAD_IO -> assertThat(storageSampleAt(f.finding().threads(), at))
                        .as("one of its threads was sampled in a storage call then").isTrue();
                default -> {
                }
            }
        }
    }

    private boolean storageSampleAt(List<String> threads, long at) {
        Recording rec = a.recording();
        for (var t : rec.threads) {
            if (!threads.contains(t.name())) continue;
            for (Samples.Cursor c = rec.samples.lane(t.id()).cursorAt(at); c.next() && c.time() == at; ) {
                if (v.inStorageCall(c.stack())) return true;
            }
        }
        return false;
    }

    @Test
    void theFlameTreesWeighTheWaitsAndShowTheHoldersStorageCalls() {
        long waited = a.waits().stream().mapToLong(Wait::duration).sum();
        long held = a.waits().stream().filter(w -> w.holder != null).mapToLong(Wait::duration).sum();
        assertThat(v.waitingStacks().nanos()).isEqualTo(waited).isPositive();
        assertThat(v.holdingStacks().nanos()).isEqualTo(held).isPositive();
        assertConsistent(v.waitingStacks());
        List<String> holderMethods = new ArrayList<>();
        collect(v.holdingStacks(), holderMethods);
        assertThat(holderMethods).containsAnyOf("java.io.FileDescriptor.sync", "java.io.FileOutputStream.writeBytes");
        List<String> waiterMethods = new ArrayList<>();
        collect(v.waitingStacks(), waiterMethods);
        assertThat(waiterMethods).anyMatch(m -> m.contains("ContentionProgram"));
    }

    private static void assertConsistent(StackTree t) {
        long children = t.children(0).stream().mapToLong(StackTree::nanos).sum();
        assertThat(children).as(t.name()).isLessThanOrEqualTo(t.nanos());
        t.children(0).forEach(ReportViewTest::assertConsistent);
    }

    private static void collect(StackTree t, List<String> into) {
        into.add(t.name());
        t.children(0).forEach(c -> collect(c, into));
    }

    @Test
    void lanesAreLabelledApartAndHoldersComeFirst() {
        assertThat(v.lanes()).extracting(ThreadView::lane).doesNotHaveDuplicates().allMatch(l -> l.length() <= ReportViews.LANE_LABEL);
        ThreadView first = v.lanes().get(0);
        assertThat(first.waitNanos() + first.heldNanos()).isPositive();
        assertThat(v.threads()).filteredOn(t -> t.name().startsWith("data-plane-kafka-request-handler-"))
                .isNotEmpty().allMatch(t -> !t.role().equals("other"));
    }

    /** Issue 21: the renderers lay out the view; classifying stacks and naming roles is the analysis's job. */
    @Test
    void renderersNeitherClassifyStacksNorNameRoles() throws IOException {
        Path render = Paths.get("src", "main", "java", "io", "stallscope", "analyzer", "render");
        List<Path> sources;
        try (Stream<Path> s = Files.list(render)) {
            sources = s.filter(p -> p.toString().endsWith(".java")).toList();
        }
        assertThat(sources).hasSizeGreaterThan(3);
        for (Path p : sources) {
            assertThat(Files.readString(p)).as(p.toString()).doesNotContain("KafkaThreads").doesNotContain("StackClassifier")
                    .doesNotContain("classifier()");
        }
    }
}
