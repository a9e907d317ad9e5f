/* BatchJavac: compile many contest programs in one JVM, each as its own javac run.
 *
 * usage: java BatchJavac MANIFEST OUT SECONDS [JAVAC OPTIONS...]
 * MANIFEST has one line per program, "FOLDER<TAB>SOURCE" (relative to the working
 * directory). For each line this runs the JDK's own javac (the javax.tools entry
 * point the javac command runs) as "javac OPTIONS -cp FOLDER -d FOLDER FOLDER/SOURCE",
 * which writes what "javac OPTIONS SOURCE" run inside FOLDER writes, and leaves
 * OUT/LINE.err (javac's diagnostics) and then OUT/LINE.rc (its exit status). A
 * program with no .rc file was not compiled: the batch was stopped first, or one
 * program took more than SECONDS, which ends the batch (that program is then
 * compiled alone, under its own limits).
 *
 * Starting the JVM is most of the cost of compiling a small program (about 0.3 s
 * of 0.32 s); in one warm JVM a contest program compiles in about 20 ms.
 */
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

public final class BatchJavac {
    private static volatile long itemStarted;  // System.nanoTime() when the current program's javac began; 0 between

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: java BatchJavac MANIFEST OUT SECONDS [JAVAC OPTIONS...]");
            System.exit(2);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Path out = Path.of(args[1]);
        long limitNanos = (long) (Double.parseDouble(args[2]) * 1e9);
        List<String> options = Arrays.asList(args).subList(3, args.length);
        Thread watchdog = new Thread(() -> {
            while (true) {
                long started = itemStarted;
                if (started != 0 && System.nanoTime() - started > limitNanos) {
                    Runtime.getRuntime().halt(124);
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        watchdog.setDaemon(true);
        watchdog.start();
        List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
        OutputStream discard = OutputStream.nullOutputStream();
        for (int i = 0; i < lines.size(); i++) {
            String[] parts = lines.get(i).split("\t", 2);
            List<String> argv = new ArrayList<>(options);
            argv.addAll(List.of("-cp", parts[0], "-d", parts[0], parts[0] + "/" + parts[1]));
            ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
            itemStarted = System.nanoTime();
            int status = javac.run(null, discard, diagnostics, argv.toArray(new String[0]));
            itemStarted = 0;
            Files.write(out.resolve(i + ".err"), diagnostics.toByteArray());
            Files.writeString(out.resolve(i + ".rc"), Integer.toString(status));
        }
    }
}
