package io.stallscope.agent.runtime;

import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.QueuedTasks;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queued task's wait: timed from its submission to its start, once, by the task's identity (not its equality: 4.2+'s
 * RemoteStorageFetchInfo is a record); nothing when its submission was not seen (no sink then, or another attach).
 */
class QueuedTasksTest extends UsesHooks {
    private final List<String> recorded = new CopyOnWriteArrayList<>();

    @Test
    void aTaskWaitsFromItsSubmissionToItsStartOnceByIdentity() throws Exception {
        Hooks.install(ListSink.of(recorded));
        String task = new String("orders-3 at 0"); // equal to, but not, the one started below
        QueuedTasks.submitted(task);
        Pauses.sleepAtLeast(5);
        QueuedTasks.started(Op.REMOTE_QUEUE_WAIT, new String("orders-3 at 0"));
        assertThat(recorded).as("an equal task that was not submitted").isEmpty();
        QueuedTasks.started(Op.REMOTE_QUEUE_WAIT, task);
        assertThat(recorded).singleElement().asString().startsWith("remote_queue_wait ");
        long waited = Long.parseLong(recorded.get(0).substring("remote_queue_wait ".length()));
        assertThat(waited).isGreaterThanOrEqualTo(5_000_000L);
        QueuedTasks.started(Op.REMOTE_QUEUE_WAIT, task);
        assertThat(recorded).as("started once").hasSize(1);
    }

    @Test
    void aSubmissionSeenWithoutASinkOrBeforeAnAttachIsNotTimed() {
        Object beforeAttach = new Object();
        QueuedTasks.submitted(beforeAttach); // no sink installed: nothing kept
        Hooks.install(ListSink.of(recorded));
        QueuedTasks.started(Op.REMOTE_QUEUE_WAIT, beforeAttach);
        Object inFirstSession = new Object();
        QueuedTasks.submitted(inFirstSession);
        Hooks.install(ListSink.of(recorded)); // a re-attach starts afresh
        QueuedTasks.started(Op.REMOTE_QUEUE_WAIT, inFirstSession);
        QueuedTasks.started(Op.REMOTE_QUEUE_WAIT, null);
        assertThat(recorded).isEmpty();
    }
}
