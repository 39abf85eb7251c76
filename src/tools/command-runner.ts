/**
 * Runs a shell command with node's child_process: output streamed and collected (up to a cap),
 * killed with its whole process group on timeout or abort. Resolves on exit; rejects only when
 * the process cannot be started.
 */
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import type { CommandResult } from './ports';

/** Output kept in memory per command; the rest is counted in `droppedBytes`. */
export const MAX_COMMAND_OUTPUT_BYTES = 32 * 1024 * 1024;

export interface SpawnOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  onOutput?: (chunk: string) => void;
  maxOutputBytes?: number;
}

export function runShellCommand(command: string, options: SpawnOptions): Promise<CommandResult> {
  const cap = options.maxOutputBytes ?? MAX_COMMAND_OUTPUT_BYTES;
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      resolve({ exitCode: null, output: '', timedOut: false, aborted: true, droppedBytes: 0 });
      return;
    }
    const posix = process.platform !== 'win32';
    const child = spawn(command, {
      cwd: options.cwd,
      shell: true,
      detached: posix, // own process group, so a timeout kills the children too
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    const parts: string[] = [];
    let kept = 0;
    let droppedBytes = 0;
    let timedOut = false;
    let aborted = false;
    const kill = () => {
      try {
        if (posix && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const onData = (decoder: StringDecoder) => (chunk: Buffer) => {
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
    child.stdout.on('data', onData(new StringDecoder('utf8')));
    child.stderr.on('data', onData(new StringDecoder('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (err) => {
      finish();
      reject(err);
    });
    child.on('close', (code) => {
      finish();
      resolve({ exitCode: code, output: parts.join(''), timedOut, aborted, droppedBytes });
    });
  });
}
