// `symposium-panel-host`: the detached process between a VS Code window and
// the chat frontend. Started by the extension with its launch spec in the
// environment; runs the gate and the frontend until told to stop, until
// a stop signal (SIGTERM/SIGINT/SIGHUP; SIGBREAK on Windows), or until no window has attached for the idle timeout.

import { onStopSignal } from "../../acp-wire/src/index.js";
import { FrontendSupervisor } from "./frontend.js";
import { Gate } from "./gate.js";
import { HostLog } from "./host-log.js";
import { EXIT_BAD_SPEC, EXIT_PORT_BUSY, LAUNCH_SPEC_ENV, parseLaunchSpec, type LaunchSpec } from "./launch-spec.js";

async function main(): Promise<void> {
  let spec: LaunchSpec;
  try {
    spec = parseLaunchSpec(process.env[LAUNCH_SPEC_ENV]);
  } catch (error) {
    process.stderr.write(`symposium-panel-host: ${(error as Error).message}\n`);
    process.exit(EXIT_BAD_SPEC);
  }
  const log = new HostLog(spec.logFile);
  const frontend = new FrontendSupervisor(spec, log);
  let stopping: Promise<void> | undefined;
  const stop = (why: string): Promise<void> =>
    (stopping ??= (async () => {
      log.line(`stopping: ${why}`);
      gate.close();
      await frontend.stop();
      log.line("stopped");
      process.exit(0);
    })());
  const gate = new Gate(
    spec,
    {
      privateOrigin: () => frontend.privateOrigin,
      identity: () => ({ pid: process.pid, launchId: spec.launchId, frontend: frontend.current }),
      stop: () => void stop("asked by the extension"),
    },
    (message) => log.line(message),
  );
  try {
    await gate.listen();
  } catch (error) {
    const busy = (error as NodeJS.ErrnoException).code === "EADDRINUSE";
    log.line(busy ? `port ${spec.port} on 127.0.0.1 is busy` : `cannot listen on 127.0.0.1:${spec.port}: ${(error as Error).message}`);
    process.exit(busy ? EXIT_PORT_BUSY : 1);
  }
  log.line(`host ${process.pid} (launch ${spec.launchId}) serving the panel on 127.0.0.1:${spec.port}; idle timeout ${spec.idleTimeoutMs} ms`);
  onStopSignal((signal) => void stop(signal));
  const idleCheck = setInterval(
    () => {
      if (gate.openSockets === 0 && Date.now() - gate.lastAttach > spec.idleTimeoutMs)
        void stop(`no window attached for ${Math.round(spec.idleTimeoutMs / 1000)} s`);
    },
    Math.max(100, Math.min(30_000, spec.idleTimeoutMs / 4)),
  );
  idleCheck.unref();
  await frontend.start();
}

void main();
