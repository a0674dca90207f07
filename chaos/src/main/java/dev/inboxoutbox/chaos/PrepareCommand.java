package dev.inboxoutbox.chaos;

import dev.inboxoutbox.chaos.fleet.ServiceLaunch;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(
    name = "prepare",
    mixinStandardHelpOptions = true,
    description = {
      "Train the services' class-data (AppCDS) archives, once per build.",
      "Extracts the built service jars and starts each once against a throwaway stack, so service processes",
      "start in about 2 s instead of 5. ./iox runs it before a chaos run that lacks the archives, and a",
      "chaos run retrains stale ones itself."
    })
public final class PrepareCommand implements Callable<Integer> {

  @CommandLine.Mixin RunDirectories directories = new RunDirectories();

  @Override
  public Integer call() throws Exception {
    return ServiceLaunch.prepareFastStart(directories.repoRoot(), directories.reports(), System.out)
        ? 0
        : 1;
  }
}
