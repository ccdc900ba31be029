package io.stallscope.agent.runtime;

import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.QueuedTasks;
import io.stallscope.agent.model.CancelledInQueue;
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

    /**
     * A task cancelled while queued (a remote read whose fetch expired): its wait up to the cancel is recorded once, on
     * the cancelling thread, ended by the cause given (the sink's failure); one that started first was timed then.
     */
    @Test
    void aTaskCancelledInTheQueueEndsItsWaitWithTheCauseOnce() throws Exception {
        List<Throwable> causes = new CopyOnWriteArrayList<>();
        Hooks.install(ListSink.of(recorded, causes));
        Object queued = "orders-7 at 0";
        Object ran = "orders-3 at 0";
        QueuedTasks.submitted(queued);
        QueuedTasks.submitted(ran);
        QueuedTasks.started(Op.REMOTE_QUEUE_WAIT, ran);
        Pauses.sleepAtLeast(5);
        QueuedTasks.cancelled(Op.REMOTE_QUEUE_WAIT, ran, CancelledInQueue.FETCH_EXPIRED); // began: its wait was timed
        QueuedTasks.cancelled(Op.REMOTE_QUEUE_WAIT, queued, CancelledInQueue.FETCH_EXPIRED);
        QueuedTasks.cancelled(Op.REMOTE_QUEUE_WAIT, queued, CancelledInQueue.FETCH_EXPIRED);
        QueuedTasks.started(Op.REMOTE_QUEUE_WAIT, queued); // never, for a cancelled task: nothing left to end
        QueuedTasks.cancelled(Op.REMOTE_QUEUE_WAIT, null, CancelledInQueue.FETCH_EXPIRED);
        assertThat(recorded).hasSize(2);
        assertThat(causes.get(0)).as("the read that began").isNull();
        assertThat(recorded.get(1)).startsWith("remote_queue_wait ");
        assertThat(Long.parseLong(recorded.get(1).split(" ")[1])).isGreaterThanOrEqualTo(5_000_000L);
        assertThat(causes.get(1)).isSameAs(CancelledInQueue.FETCH_EXPIRED);
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
