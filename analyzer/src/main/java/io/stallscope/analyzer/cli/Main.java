package io.stallscope.analyzer.cli;

import io.stallscope.analyzer.render.TerminalText;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintStream;
import java.io.PrintWriter;

/** {@code analyzer COMMAND}: exit 0 on success, 1 when an input cannot be read, 2 on a usage error. */
@Command(name = "analyzer", mixinStandardHelpOptions = true, version = "stallscope-analyzer 0.1.0",
        description = "Finds storage-path stalls and lock contention in JFR recordings of Kafka brokers.",
        subcommands = {ReportCommand.class})
public final class Main implements Runnable {
    public static final int OK = 0;
    public static final int INPUT_ERROR = 1;
    public static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required: report");
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the CLI with the given streams; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.getSubcommands().get("report").<ReportCommand>getCommand().streams(out, err);
        // One line, never a stack trace: operators run this in scripts and read it on a terminal.
        cl.setParameterExceptionHandler((ex, a) -> {
            err.println("analyzer: " + oneLine(ex.getMessage()) + " (see 'analyzer "
                    + (ex.getCommandLine() == cl ? "" : ex.getCommandLine().getCommandName() + " ") + "--help')");
            return USAGE;
        });
        cl.setExecutionExceptionHandler((ex, c, parsed) -> {
            err.println("analyzer: " + oneLine(ex.toString()));
            return INPUT_ERROR;
        });
        try {
            return cl.execute(args);
        } catch (OutOfMemoryError e) {
            err.println("analyzer: out of memory: run with a larger heap (JAVA_OPTS=-Xmx4g) or narrow --from/--to");
            return INPUT_ERROR;
        }
    }

    /** One line for the terminal: line breaks become spaces, other control characters are escaped. */
    static String oneLine(String s) {
        return s == null ? "error" : TerminalText.escape(s.replaceAll("[\\r\\n]+", " ").trim());
    }
}
