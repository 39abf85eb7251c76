import * as vscode from 'vscode';
import { parseContextSettings, type ContextSettings } from '../context/settings';

/**
 * Reads the context engine's settings (`headroom.thresholds`, `headroom.offloadThresholdBytes`,
 * `headroom.bufferFraction`, `headroom.rollingWindowMinutes`, `headroom.models`, `headroom.debug`, `headroom.cacheLifetime`) and
 * validates them. Bad values keep their defaults; the errors come back for the caller to show.
 */
export function readContextSettings(): { settings: ContextSettings; errors: string[] } {
  const cfg = vscode.workspace.getConfiguration('headroom');
  const raw: Record<string, unknown> = {};
  // Restricted Mode: the workspace's own values are not read (`restrictedConfigurations` in package.json).
  const trusted = vscode.workspace.isTrusted;
  const copy = (key: string, as = key) => {
    const v = cfg.inspect(key);
    const value = (trusted ? (v?.workspaceFolderValue ?? v?.workspaceValue) : undefined) ?? v?.globalValue;
    if (value !== undefined) raw[as] = value;
  };
  copy('thresholds');
  copy('offloadThresholdBytes');
  copy('bufferFraction');
  copy('models');
  copy('debug');
  copy('cacheLifetime');
  const minutes = cfg.get<unknown>('rollingWindowMinutes');
  if (typeof minutes === 'number' && minutes > 0) raw.rollingWindowMs = minutes * 60_000;
  else if (minutes !== undefined && minutes !== 0 && typeof minutes !== 'number') raw.rollingWindowMs = minutes;
  return parseContextSettings(raw);
}

/** `headroom.maxIterations`: model requests per turn, 1–500 (default 50). */
export function readMaxIterations(): number {
  const v = vscode.workspace.getConfiguration('headroom').get<unknown>('maxIterations');
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 500 ? v : 50;
}

/** Compaction settings: `headroom.summarizerModel`, `headroom.compaction.keepTurns`, `headroom.compaction.resummarizeEvery`, `headroom.compaction.native`. */
export function readCompactionSettings(): {
  summarizerModel: string | undefined;
  keepTurns: number;
  resummarizeEvery: number;
  native: boolean;
} {
  const cfg = vscode.workspace.getConfiguration('headroom');
  const int = (v: unknown, min: number, max: number, dflt: number) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : dflt;
  const model = cfg.get<unknown>('summarizerModel');
  return {
    summarizerModel: typeof model === 'string' && model.trim() && !/\s/.test(model.trim()) ? model.trim() : undefined,
    keepTurns: int(cfg.get('compaction.keepTurns'), 0, 1000, 0),
    resummarizeEvery: int(cfg.get('compaction.resummarizeEvery'), 0, 1000, 10),
    native: cfg.get<unknown>('compaction.native') !== false,
  };
}
