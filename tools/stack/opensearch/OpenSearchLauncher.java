package dev.inkwell.stack;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.opensearch.Version;
import org.opensearch.analysis.common.CommonAnalysisModulePlugin;
import org.opensearch.common.logging.LogConfigurator;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;
import org.opensearch.plugins.PluginInfo;
import org.opensearch.transport.Netty4ModulePlugin;

/**
 * Starts a single local OpenSearch node for development and tests (tools/stack/up.sh runs it).
 *
 * <p>Maven Central has the OpenSearch server and its modules as jars, but neither the distribution
 * archive nor the Java agent that the stock main class ({@code org.opensearch.bootstrap.OpenSearch})
 * needs; the stock bootstrap also refuses to run as root. This launcher does what a local node
 * needs of it and nothing more: it reads {@code <conf>/opensearch.yml} and {@code log4j2.properties}
 * exactly as the stock bootstrap does, and starts a {@link Node} whose modules (HTTP/transport and
 * the common analyzers such as {@code english}) are classes on the class path instead of folders
 * under {@code modules/}. It skips the security agent, native set-up (memory locking, seccomp),
 * bootstrap checks and the keystore. Development and tests only, never production.
 *
 * <p>System properties (set by up.sh, the same names the stock start script uses):
 * {@code opensearch.path.home} (required) and {@code opensearch.path.conf} (default
 * {@code <home>/config}). SIGTERM closes the node cleanly.
 */
public final class OpenSearchLauncher {

    private OpenSearchLauncher() {}

    /** A node whose modules are the given class-path plugins. */
    private static final class ClasspathNode extends Node {
        ClasspathNode(Environment environment, Collection<PluginInfo> classpathPlugins) {
            // true = reject private index settings in requests, as the stock node does.
            super(environment, classpathPlugins, true);
        }
    }

    /** Describes a plugin class the way the test framework's MockNode does for class-path plugins. */
    private static PluginInfo classpathPlugin(Class<? extends Plugin> plugin) {
        return new PluginInfo(plugin.getName(), "class-path module", "NA", Version.CURRENT, "21",
            plugin.getName(), null, List.of(), false);
    }

    /** Starts the node and blocks until the JVM is asked to stop. */
    public static void main(String[] args) throws Exception {
        String homeProperty = System.getProperty("opensearch.path.home");
        if (homeProperty == null || homeProperty.isEmpty()) {
            System.err.println("set -Dopensearch.path.home=<folder with config/>");
            System.exit(2);
        }
        Path home = Path.of(homeProperty).toAbsolutePath();
        Path conf = Path.of(System.getProperty("opensearch.path.conf", home.resolve("config").toString()));

        // Reads opensearch.yml (with ${VAR:default} placeholders) on top of path.home; path.data and
        // path.logs default to <home>/data and <home>/logs.
        Environment environment = InternalSettingsPreparer.prepareEnvironment(
            Settings.builder().put(Environment.PATH_HOME_SETTING.getKey(), home.toString()).build(),
            Map.of(), conf, () -> "inkwell-dev");
        LogConfigurator.registerErrorListener();
        if (Node.NODE_NAME_SETTING.exists(environment.settings())) {
            LogConfigurator.setNodeName(Node.NODE_NAME_SETTING.get(environment.settings()));
        }
        LogConfigurator.configure(environment);

        Node node = new ClasspathNode(environment,
            List.of(classpathPlugin(Netty4ModulePlugin.class), classpathPlugin(CommonAnalysisModulePlugin.class)));

        // The node's own threads are daemons: this latch keeps the JVM alive until shutdown.
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                if (!node.awaitClose(30, TimeUnit.SECONDS)) {
                    System.err.println("OpenSearch node did not close within 30 s");
                }
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                stopped.countDown();
            }
        }, "opensearch-shutdown"));

        try {
            node.start();
        } catch (Throwable t) {
            // A failed start (e.g. BindTransportException: port in use) must end the process, not
            // hang it. The reason goes last, so the log tail up.sh shows ends with it.
            t.printStackTrace();
            StringBuilder reason = new StringBuilder("OpenSearch node failed to start: ").append(t);
            for (Throwable cause = t.getCause(); cause != null; cause = cause.getCause()) {
                reason.append("; caused by ").append(cause);
            }
            System.err.println(reason);
            System.err.flush();
            Runtime.getRuntime().halt(1);
        }
        stopped.await();
    }
}
