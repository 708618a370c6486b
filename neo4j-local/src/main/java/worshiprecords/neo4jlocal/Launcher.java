package worshiprecords.neo4jlocal;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.internal.helpers.HostnamePort;
import org.neo4j.io.ByteUnit;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.logging.Level;
import org.neo4j.logging.log4j.Log4jLogProvider;

/**
 * A Neo4j Community DBMS for development and tests, reachable over Bolt on the loopback
 * interface like a server. Started by scripts/neo4j-local.ts (npm run neo4j:local), which reads
 * the three NEO4J_* lines this prints on stdout once the default database answers a query.
 * Everything else goes to stderr.
 *
 * Arguments (all optional): --port N (default: a free port), --home DIR (default: a fresh
 * temporary directory, deleted on exit), --page-cache SIZE_MB, --exit-on-stdin-eof (stop when the
 * parent process closes our stdin, so a wrapper that dies cannot leave a DBMS running).
 */
public final class Launcher {
    private static final PrintStream OUT = System.out;
    private static final PrintStream ERR = System.err;
    /** A port chosen free can be taken by someone else before Neo4j binds it: try a few. */
    private static final int PORT_ATTEMPTS = 5;

    private Launcher() {}

    public static void main(String[] args) throws Exception {
        Integer port = null;
        Path home = null;
        long pageCacheMb = 128;
        boolean exitOnStdinEof = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--home" -> home = Paths.get(args[++i]).toAbsolutePath();
                case "--page-cache" -> pageCacheMb = Long.parseLong(args[++i]);
                case "--exit-on-stdin-eof" -> exitOnStdinEof = true;
                default -> {
                    ERR.println("neo4j-local: unknown argument " + args[i]);
                    System.exit(2);
                }
            }
        }
        boolean ownHome = home == null;
        Path dir = ownHome ? Files.createTempDirectory("neo4j-local-") : Files.createDirectories(home);

        // SIGINT and SIGTERM run the shutdown hooks: close the store cleanly (a checkpoint, no
        // recovery on the next start), then remove the temporary directory if it is ours.
        // Registered before the DBMS is built so that a signal during startup cleans up too.
        final AtomicReference<DatabaseManagementService> running = new AtomicReference<>();
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                DatabaseManagementService dbms = running.getAndSet(null);
                if (dbms != null) dbms.shutdown();
            } finally {
                if (ownHome) deleteTree(dir);
                ERR.println("neo4j-local: stopped");
                stopped.countDown();
            }
        }, "neo4j-local-shutdown"));

        DatabaseManagementService dbms = null;
        int bound = -1;
        for (int attempt = 1; dbms == null; attempt++) {
            int candidate = port != null ? port : freeLoopbackPort();
            try {
                dbms = build(dir, candidate, pageCacheMb);
                bound = boltPort(dbms);
                if (bound != candidate) throw new IllegalStateException("Bolt bound port " + bound + ", not " + candidate);
            } catch (RuntimeException e) {
                if (dbms != null) dbms.shutdown();
                dbms = null;
                if (port != null || attempt >= PORT_ATTEMPTS) {
                    ERR.println("neo4j-local: could not start Neo4j with Bolt on 127.0.0.1:" + candidate + ": " + rootCause(e));
                    System.exit(1);
                }
                ERR.println("neo4j-local: port " + candidate + " was taken (" + rootCause(e) + "); trying another");
            }
        }

        running.set(dbms);

        try {
            String password = setPassword(dbms);
            GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
            if (!db.isAvailable(Duration.ofMinutes(2).toMillis())) throw new IllegalStateException("the default database did not become available");
            long answer = db.executeTransactionally("RETURN 1 AS one", Map.of(), r -> (Long) r.next().get("one"));
            if (answer != 1) throw new IllegalStateException("RETURN 1 answered " + answer);
            ERR.println("neo4j-local: Neo4j " + neo4jVersion(db) + " ready, data in " + dir + (ownHome ? " (removed on exit)" : ""));
            OUT.println("NEO4J_URI=bolt://127.0.0.1:" + bound);
            OUT.println("NEO4J_USER=neo4j");
            OUT.println("NEO4J_PASSWORD=" + password);
            OUT.flush();
        } catch (RuntimeException e) {
            ERR.println("neo4j-local: Neo4j started but does not answer: " + rootCause(e));
            System.exit(1);
        }

        if (exitOnStdinEof) {
            InputStream in = System.in;
            while (in.read() != -1) {
                // Nothing is sent on stdin; reading only detects that the parent went away.
            }
            System.exit(0);
        }
        stopped.await();
    }

    private static DatabaseManagementService build(Path dir, int port, long pageCacheMb) {
        SocketAddress bolt = new SocketAddress("127.0.0.1", port);
        return new DatabaseManagementServiceBuilder(dir)
                .setUserLogProvider(new Log4jLogProvider(ERR, Level.WARN))
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, bolt)
                // The address the routing table hands to neo4j:// clients: the port really bound.
                .setConfig(BoltConnector.advertised_address, bolt)
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                // Auth on, as in production: the service's driver always sends basic credentials.
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                // The default is about half the machine's memory; this DBMS shares a small machine.
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pageCacheMb))
                // Transaction logs are preallocated at 256 MB each by default: too much for a
                // throwaway directory. Keep only what recovery needs.
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
                .setConfig(GraphDatabaseSettings.udc_enabled, false)
                .build();
    }

    /**
     * The password of the built-in neo4j user: a fresh random one each start (the user exists with
     * a must-change password until then; the system database accepts the change from inside).
     */
    private static String setPassword(DatabaseManagementService dbms) {
        byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)
                .executeTransactionally("ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
        return password;
    }

    private static int boltPort(DatabaseManagementService dbms) {
        GraphDatabaseAPI system = (GraphDatabaseAPI) dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        HostnamePort address = system.getDependencyResolver().resolveDependency(ConnectorPortRegister.class).getLocalAddress(ConnectorType.BOLT);
        if (address == null) throw new IllegalStateException("the Bolt connector is not listening");
        return address.getPort();
    }

    private static String neo4jVersion(GraphDatabaseService db) {
        return db.executeTransactionally(
                "CALL dbms.components() YIELD versions RETURN versions[0] AS version", Map.of(), r -> (String) r.next().get("version"));
    }

    private static int freeLoopbackPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + t + ")";
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            ERR.println("neo4j-local: could not remove " + dir + ": " + e.getMessage());
        }
    }
}
