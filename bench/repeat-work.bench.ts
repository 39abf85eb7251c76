/**
 * Repeated work and honest receipts (a long scripted session through the session service, on the fake
 * provider, 32k window, several compactions). The scripted model is forgetful on purpose: every third
 * turn it runs the same test command, whether or not a file changed since, and every fifth turn it
 * writes a file; its summarizer names nothing. Prints:
 *   repeat_commands_without_change  commands that actually ran again although no file changed since the
 *                                   last run of the same command that passed (target 0); `attempts` is
 *                                   how many such re-runs the model asked for (so 0 is not vacuous)
 *   receipt_matches_next_request    share of compactions whose receipt figures and missing items equal
 *                                   what the next request carries on the wire (target 1.0)
 */
// figures: repeat_commands_without_change receipt_matches_next_request
import type { AgentEvent, CompactionChange } from '../src/agent/events';
import { CACHED_SUMMARY_MARK } from '../src/context/compaction';
import type { RecordedRequest } from '../test/fixtures/fake-provider/index';
import { createFakeWorld, MODEL } from '../test/fixtures/app/fake-environment';
import { receiptMismatches } from '../test/fixtures/compaction/receipt-check';
import { prose } from '../test/fixtures/agent/fill';
import { r3, report } from './util';

const TURNS = 90;
const COMMAND = 'echo TESTS-PASS';

const isSummary = (req: RecordedRequest) => {
  const body = JSON.stringify(req.body.messages);
  return (
    body.includes('<transcript>') ||
    body.includes('consecutive parts of one coding session') ||
    body.includes(CACHED_SUMMARY_MARK.slice(1, 40))
  );
};

async function main(): Promise<void> {
  const world = await createFakeWorld({ 'src/app.ts': 'export const app = 0;\n' });
  try {
    const { service, env } = await world.open({ models: { [MODEL]: { contextWindow: 32_000, maxOutput: 4_000 } } });
    world.server.setWindow(MODEL, 32_000);
    const queue: object[] = [];
    const dispatch = (req: RecordedRequest) => (isSummary(req) ? { text: '## Goal\nKeep going.' } : (queue.shift() ?? { text: 'ok' }));
    const changes: Array<{ change: CompactionChange; requestsBefore: number }> = [];
    service.onDidEvent((e: AgentEvent) => {
      if (e.type === 'compaction_end' && e.change?.receipt)
        changes.push({ change: e.change, requestsBefore: world.server.requests.length });
    });

    // What the workspace went through, as the bench itself counts it: a write the user approved is a change.
    let writes = 0;
    let lastRunAtWrites: number | undefined;
    let ranAgainWithoutChange = 0;
    let attempts = 0;
    for (let i = 0; i < TURNS; i++) {
      const steps: object[] = [];
      if (i % 5 === 4)
        steps.push({
          toolCalls: [
            { id: `w${i}`, name: 'write_file', arguments: { path: `src/part-${i}.ts`, content: `export const p${i} = ${i};\n` } },
          ],
        });
      const runs = i % 3 === 0;
      if (runs) steps.push({ toolCalls: [{ id: `c${i}`, name: 'run_command', arguments: { command: COMMAND } }] });
      queue.push(...steps, { text: `ANSWER-${i}: ${prose(3500, i + 1)}` });
      for (let k = 0; k < steps.length + 4; k++) world.server.script.push(dispatch);
      const editsBefore = env.approvalsMade.requests.filter((r) => r.kind === 'edit').length;
      const commandsBefore = env.approvalsMade.requests.filter((r) => r.kind === 'command').length;
      await service.turns.prompt(`turn ${i}: carry on with part ${i}. ${prose(1500, 1000 + i)}`);
      writes += env.approvalsMade.requests.filter((r) => r.kind === 'edit').length - editsBefore;
      const ran = env.approvalsMade.requests.filter((r) => r.kind === 'command').length - commandsBefore;
      if (runs && lastRunAtWrites === writes) attempts++;
      if (ran > 0) {
        if (lastRunAtWrites === writes) ranAgainWithoutChange++;
        lastRunAtWrites = writes;
      }
    }
    report({
      bench: 'repeat_commands_without_change',
      value: ranAgainWithoutChange,
      unit: 'commands',
      target: 0,
      better: 'lower',
      attempts,
      compactions: changes.length,
    });

    let agreeing = 0;
    const problems: string[] = [];
    for (const { change, requestsBefore } of changes) {
      const next = world.server.requests.slice(requestsBefore).find((r) => !isSummary(r));
      if (!next || !change.receipt) continue;
      const { mismatches } = receiptMismatches(change, change.receipt, next);
      if (mismatches.length === 0) agreeing++;
      else problems.push(...mismatches.slice(0, 3));
    }
    report({
      bench: 'receipt_matches_next_request',
      value: changes.length >= 3 ? r3(agreeing / changes.length) : 0,
      unit: 'share',
      target: 1,
      better: 'higher',
      compactions: changes.length,
      ...(problems.length ? { problems: problems.slice(0, 5) } : {}),
    });
  } finally {
    await world.close();
  }
}

void main();
