/**
 * Runs a shell command with node's child_process: output streamed and collected (up to a cap), an
 * allow-listed environment (`command-env.ts`), optionally through a launcher that isolates it from
 * the host's processes (`command-launcher.ts`), and on timeout or
 * abort the whole process tree is killed: the command's process group and every descendant, also one
 * that left the group with `setsid`. The promise settles at exit, timeout or abort even when a
 * grandchild keeps the output pipes open: after the shell is gone it waits `closeGraceMs` for the
 * pipes, then stops reading them. Rejects only when the process cannot be started.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { commandEnvironment } from './command-env';
import type { Launcher } from './command-launcher';
import type { CommandResult } from './ports';

/** Output kept in memory per command; the rest is counted in `droppedBytes`. */
export const MAX_COMMAND_OUTPUT_BYTES = 32 * 1024 * 1024;
/** How long the output pipes may stay open after the shell exited or was killed. */
export const CLOSE_GRACE_MS = 500;

export interface SpawnOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  onOutput?: (chunk: string) => void;
  maxOutputBytes?: number;
  /** The command's environment. Default: the host's allow-listed variables (`commandEnvironment`). */
  env?: Record<string, string>;
  /** Starts `/bin/sh -c <command>` through this program (the isolating launcher); default: the shell directly. */
  launcher?: Launcher;
  closeGraceMs?: number;
}

/** Longest wait for output still streaming after the shell is gone (a grandchild writing forever). */
const MAX_DRAIN_MS = 5_000;

const posix = process.platform !== 'win32';

export function runShellCommand(command: string, options: SpawnOptions): Promise<CommandResult> {
  const cap = options.maxOutputBytes ?? MAX_COMMAND_OUTPUT_BYTES;
  const graceMs = options.closeGraceMs ?? CLOSE_GRACE_MS;
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      resolve({ exitCode: null, output: '', timedOut: false, aborted: true, droppedBytes: 0 });
      return;
    }
    const spawnOptions = {
      cwd: options.cwd,
      detached: posix, // own process group, so a kill reaches the children too
      stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'],
      env: options.env ?? commandEnvironment(process.env).env,
    };
    const launcher = options.launcher;
    const child = launcher
      ? spawn(launcher.file, [...launcher.args, '/bin/sh', '-c', command], spawnOptions)
      : spawn(command, { ...spawnOptions, shell: true });
    const parts: string[] = [];
    let kept = 0;
    let droppedBytes = 0;
    let timedOut = false;
    let aborted = false;
    let exitCode: number | null = null;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let graceStart = 0;
    let dataSeq = 0;

    const onData = (decoder: StringDecoder) => (chunk: Buffer) => {
      if (settled) return;
      dataSeq++;
      const text = decoder.write(chunk);
      if (!text) return;
      if (kept + chunk.length <= cap) {
        parts.push(text);
        kept += chunk.length;
      } else {
        droppedBytes += chunk.length;
      }
      try {
        options.onOutput?.(text);
      } catch {
        // a failing UI listener must not break the command
      }
    };
    child.stdout?.on('data', onData(new StringDecoder('utf8')));
    child.stderr?.on('data', onData(new StringDecoder('utf8')));

    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // A grandchild may still hold the pipes: stop reading them rather than wait for it.
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({ exitCode, output: parts.join(''), timedOut, aborted, droppedBytes });
    };
    // After the shell is gone: settle once the pipes closed, or once no output arrived for graceMs
    // (checked after a setImmediate, so output already waiting is read first), or at MAX_DRAIN_MS.
    const armGrace = () => {
      const seen = dataSeq;
      graceTimer = setTimeout(() => {
        setImmediate(() => {
          if (dataSeq !== seen && Date.now() - graceStart < MAX_DRAIN_MS) armGrace();
          else settle();
        });
      }, graceMs);
    };
    const startGrace = () => {
      if (settled || graceTimer) return;
      graceStart = Date.now();
      armGrace();
    };
    const stop = () => {
      void killTree(child).finally(startGrace);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('exit', (code) => {
      exitCode = code;
      startGrace();
    });
    child.on('close', (code) => {
      exitCode = code ?? exitCode;
      settle();
    });
  });
}

/** Kills `child`, its process group and every descendant (found before the kill). Never rejects. */
export async function killTree(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  if (!posix) {
    await new Promise<void>((done) => execFile('taskkill', ['/pid', String(pid), '/T', '/F'], () => done()));
    child.kill('SIGKILL');
    return;
  }
  const descendants = await listDescendants(pid);
  for (const target of [pid, ...descendants]) {
    for (const id of [-target, target]) {
      try {
        process.kill(id, 'SIGKILL');
      } catch {
        // already gone, or not a group leader
      }
    }
  }
}

/** Pids of every descendant of `root` (children, grandchildren…), from `ps`. [] when ps fails. */
export function listDescendants(root: number): Promise<number[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid='], { timeout: 5_000 }, (err, stdout) => {
      if (err) return resolve([]);
      const children = new Map<number, number[]>();
      for (const line of stdout.split('\n')) {
        const [pid, ppid] = line.trim().split(/\s+/).map(Number);
        if (!Number.isFinite(pid) || !Number.isFinite(ppid)) continue;
        children.set(ppid, [...(children.get(ppid) ?? []), pid]);
      }
      const out: number[] = [];
      const queue = [root];
      while (queue.length) {
        for (const c of children.get(queue.shift() as number) ?? []) {
          if (out.includes(c) || c === root) continue;
          out.push(c);
          queue.push(c);
        }
      }
      resolve(out);
    });
  });
}
