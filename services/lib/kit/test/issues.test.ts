import { DomainError, Issues } from '../src/errors';

describe('Issues', () => {
  it('throws nothing while every check holds', () => {
    expect(() => new Issues().check(true, 'a', 'is required').throwIfAny('Invalid thing')).not.toThrow();
  });

  it('names every failed check in one validation error, in order', () => {
    const issues = new Issues().check(false, 'a', 'is required').check(true, 'b', 'unused').add('c', 'too long');
    expect(issues.any).toBe(true);
    let thrown: unknown;
    try {
      issues.throwIfAny('Invalid thing');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect(thrown).toMatchObject({
      kind: 'validation',
      code: 'ERR_VALIDATION',
      message: 'Invalid thing',
      details: [
        { field: 'a', message: 'is required' },
        { field: 'c', message: 'too long' },
      ],
    });
  });

  it('carries a specific code when given one', () => {
    expect(() => new Issues().add('channel', 'wrong kind').throwIfAny('Mismatch', 'ERR_CHANNEL_MISMATCH')).toThrow(
      expect.objectContaining({ code: 'ERR_CHANNEL_MISMATCH' }),
    );
  });
});
