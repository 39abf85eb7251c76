import assert from 'node:assert/strict';
import {
  chooseCacheLifetime,
  lifetimesOffered,
  lifetimeText,
  writePriceFor,
  type CacheRequestRecord,
} from '../../src/context/cache-lifetime';
import { costOf, cacheSavings } from '../../src/context/cost';
import { parseContextSettings } from '../../src/context/settings';

/** Anthropic-like prices per million tokens: input 3, reads 0.1×, 5-minute writes 1.25×. */
const PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const MIN = 60_000;

/** A session of requests `gapsMin` minutes apart, each reading `cached` and writing `written` tokens. */
function session(gapsMin: number[], cached = 50_000, written = 800): CacheRequestRecord[] {
  let at = 1_000_000;
  const out: CacheRequestRecord[] = [{ at, read: 0, write: cached }];
  for (const g of gapsMin) {
    at += g * MIN;
    out.push({ at, read: cached, write: written });
  }
  return out;
}

describe('cache lifetime: which lifetime a turn asks for, and its price', () => {
  it('offers 5 min / 1 h on Anthropic, 24 h on OpenAI models with extended retention, nothing elsewhere', () => {
    assert.deepEqual(lifetimesOffered('anthropic', 'claude-sonnet-4-5'), ['5m', '1h']);
    assert.deepEqual(lifetimesOffered('openai', 'gpt-5.1'), ['5m', '24h']);
    assert.deepEqual(lifetimesOffered('openai', 'gpt-4.1-mini'), ['5m', '24h']);
    assert.deepEqual(lifetimesOffered('openai', 'gpt-5.5'), ['24h'], 'gpt-5.5 and later take only 24h');
    assert.deepEqual(lifetimesOffered('openai', 'gpt-4o'), ['5m']);
    assert.deepEqual(lifetimesOffered('openai-compatible', 'llama3'), []);
  });

  it('prices 1-hour writes at 2× input and 5-minute writes at the table price (1.25×)', () => {
    assert.equal(writePriceFor('1h', 'anthropic', PRICES), 6);
    assert.equal(writePriceFor('5m', 'anthropic', PRICES), 3.75);
    assert.equal(writePriceFor('24h', 'openai', { input: 2, cacheRead: 0.5, cacheWrite: 0 }), 2, 'no extra price');
  });

  it('auto keeps the default without history or without idle gaps past 5 minutes', () => {
    assert.equal(chooseCacheLifetime('auto', ['5m', '1h'], [], 'anthropic', PRICES), undefined);
    assert.equal(chooseCacheLifetime('auto', ['5m', '1h'], session([0.5, 1, 2, 4, 0.2, 3]), 'anthropic', PRICES), undefined);
  });

  it('auto picks 1 hour when idle gaps of 6–50 minutes would expire the 5-minute cache and that costs more than 2× writes', () => {
    const gaps = [1, 1, 12, 1, 1, 20, 1, 1, 45, 1];
    assert.equal(chooseCacheLifetime('auto', ['5m', '1h'], session(gaps), 'anthropic', PRICES), '1h');
  });

  it('auto keeps 5 minutes when the gaps outlast an hour too (1 hour would not save a read) or the prefix is small', () => {
    assert.equal(chooseCacheLifetime('auto', ['5m', '1h'], session([1, 90, 1, 120, 1, 75]), 'anthropic', PRICES), undefined);
    // One long gap in many requests, each writing much: the extra write price exceeds the one saved read.
    const rare = [...Array.from({ length: 30 }, () => 1), 20];
    assert.equal(chooseCacheLifetime('auto', ['5m', '1h'], session(rare, 5_000, 4_000), 'anthropic', PRICES), undefined);
  });

  it('auto asks OpenAI for 24 h (same price) after a gap past 5 minutes; a 24h-only model always gets 24h', () => {
    const openai = { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 };
    assert.equal(chooseCacheLifetime('auto', ['5m', '24h'], session([1, 30, 1]), 'openai', openai), '24h');
    assert.equal(chooseCacheLifetime('auto', ['5m', '24h'], session([1, 2, 1]), 'openai', openai), undefined);
    assert.equal(chooseCacheLifetime('auto', ['24h'], [], 'openai', openai), '24h');
  });

  it('a fixed setting is sent only where the model offers it', () => {
    assert.equal(chooseCacheLifetime('1h', ['5m', '1h'], [], 'anthropic', PRICES), '1h');
    assert.equal(chooseCacheLifetime('24h', ['5m', '1h'], [], 'anthropic', PRICES), undefined);
    assert.equal(chooseCacheLifetime('1h', ['5m', '24h'], [], 'openai', PRICES), undefined);
    assert.equal(chooseCacheLifetime('5m', [], [], 'openai-compatible', PRICES), undefined);
  });

  it('the session cost bills 1-hour writes at 2× input', () => {
    const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 1_000_000, cacheWrite1h: 1_000_000 };
    assert.equal(costOf(usage, PRICES), 6);
    assert.equal(costOf({ ...usage, cacheWrite1h: 400_000 }, PRICES), 0.6 * 3.75 + 0.4 * 6);
    assert.equal(cacheSavings(usage, PRICES), -3, 'the premium of a 1-hour write is 1× input');
  });

  it('the setting is validated (auto by default) and worded with its price', () => {
    assert.equal(parseContextSettings({}).settings.cacheLifetime, 'auto');
    assert.equal(parseContextSettings({ cacheLifetime: '1h' }).settings.cacheLifetime, '1h');
    const bad = parseContextSettings({ cacheLifetime: '2h' });
    assert.equal(bad.settings.cacheLifetime, 'auto');
    assert.match(bad.errors[0], /headroom\.cacheLifetime/);
    assert.match(lifetimeText('1h'), /2× input, 1\.25× for 5 minutes/);
    assert.match(lifetimeText('24h'), /24 hours/);
  });
});
