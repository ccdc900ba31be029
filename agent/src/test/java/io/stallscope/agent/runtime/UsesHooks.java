package io.stallscope.agent.runtime;

import io.stallscope.agent.bootstrap.Hooks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * For tests that install a sink into the hooks: the hook classes go on the bootstrap class path first (as the agent
 * puts them), and after each test the hooks are detached again, emptying every thread's state.
 */
abstract class UsesHooks {
    @BeforeAll
    static void hooksOnTheBootstrapClassPath() {
        HooksOnBootstrap.ensure();
    }

    @AfterEach
    void detachTheHooks() {
        Hooks.install(null);
    }
}
