/**
 * Every integration suite, loaded after mocha has installed its globals. Add new suite files here.
 * (esbuild turns these dynamic imports into lazily-initialized modules inside the one bundle.)
 */
export async function registerSuites(): Promise<void> {
  // One after another: suites register in this order.
  await import('./activation.test');
  await import('./panel-handshake.test');
  await import('./commands.test');
  await import('./keybindings.test');
  await import('./agent-edit-approval.test');
  await import('./compaction-session.test');
  await import('./panel-refresh.test');
  await import('./small-window-session.test');
  await import('./local-server-session.test');
  await import('./meter-components.test');
  await import('./context-fidelity.test');
  await import('./vscode-lm-provider.test');
  await import('./session-model-choice.test');
  await import('./never-forgets.test');
}
