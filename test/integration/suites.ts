/**
 * Every integration suite, loaded after mocha has installed its globals. Add new suite files here.
 * (esbuild turns these requires into lazily-initialized modules inside the one bundle.)
 */
export function registerSuites(): void {
  require('./activation.test');
  require('./panel-handshake.test');
  require('./commands.test');
  require('./agent-edit-approval.test');
  require('./compaction-session.test');
}
