import assert from 'node:assert/strict';
import { readFileTool } from '../../src/tools/builtin/read-file';
import { call, makeContext, removeDir, resultText, tempWorkspace } from '../fixtures/tools/tool-context';

describe('tools: read_file', () => {
  let root: string;
  const ten = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

  before(async () => {
    root = await tempWorkspace({
      'ten.txt': ten,
      'crlf.txt': 'one\r\ntwo\r\n',
      'empty.txt': '',
      'big.txt': Array.from({ length: 2500 }, (_, i) => `row ${i + 1}`).join('\n'),
      'bin.dat': 'abc\u0000def',
      'dir/x.txt': 'x',
    });
  });
  after(() => removeDir(root));

  const read = (args: Record<string, unknown>) => readFileTool.invoke(call('read_file', args), makeContext(root));

  it('reads a whole small file with line numbers', async () => {
    const r = await read({ path: 'ten.txt' });
    const text = resultText(r);
    assert.equal(r.isError, false);
    assert.match(text, /^ten\.txt — lines 1-10 of 10\n/);
    assert.match(text, /\n 1\tline 1\n/);
    assert.match(text, /\n10\tline 10$/);
  });

  it('reads an inclusive line range', async () => {
    const text = resultText(await read({ path: 'ten.txt', start_line: 3, end_line: 5 }));
    assert.equal(text, 'ten.txt — lines 3-5 of 10 (more follows: start_line=6)\n3\tline 3\n4\tline 4\n5\tline 5');
  });

  it('clamps end_line to the end of the file', async () => {
    const text = resultText(await read({ path: 'ten.txt', start_line: 9, end_line: 50 }));
    assert.equal(text, 'ten.txt — lines 9-10 of 10\n 9\tline 9\n10\tline 10');
  });

  it('stops at 2000 lines without a range and says where to continue', async () => {
    const text = resultText(await read({ path: 'big.txt' }));
    assert.match(text, /^big\.txt — lines 1-2000 of 2500 \(more follows: start_line=2001\)/);
    assert.match(text, /2000\trow 2000$/);
  });

  it('strips CR from CRLF files', async () => {
    assert.equal(resultText(await read({ path: 'crlf.txt' })), 'crlf.txt — lines 1-2 of 2\n1\tone\n2\ttwo');
  });

  it('explains bad ranges, missing files, folders, empty and binary files', async () => {
    const past = await read({ path: 'ten.txt', start_line: 11 });
    assert.equal(past.isError, true);
    assert.match(resultText(past), /start_line 11 is past the end of ten\.txt, which has 10 lines/);
    const backwards = await read({ path: 'ten.txt', start_line: 5, end_line: 2 });
    assert.match(resultText(backwards), /end_line \(2\) is before start_line \(5\)/);
    const missing = await read({ path: 'nope.txt' });
    assert.equal(missing.isError, true);
    assert.match(resultText(missing), /File not found: "nope\.txt"/);
    assert.match(resultText(await read({ path: 'dir' })), /is a folder/);
    assert.match(resultText(await read({ path: 'empty.txt' })), /empty/);
    assert.match(resultText(await read({ path: 'bin.dat' })), /binary file/);
    const zero = await read({ path: 'ten.txt', start_line: 0 });
    assert.equal(zero.errorKind, 'invalid_tool_input');
    assert.match(resultText(zero), /start_line/);
  });
});
