import { isPrefixedId, newId, randomBase62 } from '../../src/ids.js';

describe('ids', () => {
  it('newId is the prefix, an underscore and 24 base62 characters, never repeated', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('req'));
    for (const id of ids.slice(0, 100)) expect(id).toMatch(/^req_[0-9A-Za-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(isPrefixedId(ids[0]!, 'req')).toBe(true);
    expect(isPrefixedId(ids[0]!, 'vs')).toBe(false);
  });

  it('draws every base62 character about equally often (no modulo bias towards the first eight)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) for (const c of randomBase62(31)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (20_000 * 31) / 62;
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.06);
  });

  it('any length works, longer than the scratch buffer included', () => {
    expect(randomBase62(0)).toBe('');
    expect(randomBase62(1)).toMatch(/^[0-9A-Za-z]$/);
    const long = randomBase62(700);
    expect(long).toMatch(/^[0-9A-Za-z]{700}$/);
    // Two calls never share characters through the scratch buffer.
    const a = randomBase62(24);
    const b = randomBase62(24);
    expect(a).not.toBe(b);
  });
});
