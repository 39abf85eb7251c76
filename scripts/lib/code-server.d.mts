import type { ChildProcess } from 'node:child_process';
export const ROOT: string;
export const CACHE: string;
export const NODE24: string;
export const CHROMIUM: string;
export const CHROMIUM_ARGS: string[];
export function ensureCodeServer(opts?: { log?: (s: string) => void }): void;
export function ensureTestVsCode(opts?: { log?: (s: string) => void }): void;
export function scrubbedEnv(env?: NodeJS.ProcessEnv): Record<string, string>;
export function freePort(): Promise<number>;
export function installVsix(vsix: string, extensionsDir: string, userDataDir: string): void;
export function writeUserSettings(userDataDir: string, settings: Record<string, unknown>): void;
export function killTree(pid: number | undefined): void;
export interface RunningCodeServer {
  url: string;
  folderUrl: string;
  pid: number;
  proc: ChildProcess;
  stop(): void;
}
export function startCodeServer(opts: {
  workspace: string;
  extensionsDir: string;
  userDataDir: string;
  port?: number;
  env?: Record<string, string>;
  logFile?: string;
  quiet?: boolean;
  /** Leave workspace trust on, so a folder opens in Restricted Mode. Default false. */
  workspaceTrust?: boolean;
}): Promise<RunningCodeServer>;
export function sweepLeftovers(cache?: string, log?: (s: string) => void): void;
