import { withoutPassword } from '../src/secrets';

describe('withoutPassword', () => {
  it("masks the password of a webmail channel's SMTP URL, and leaves other URLs alone", () => {
    expect(withoutPassword('smtp://mailer:s3cret@smtp.example:587')).toBe('smtp://mailer:***@smtp.example:587');
    expect(withoutPassword('smtps://mailer@smtp.example')).toBe('smtps://mailer@smtp.example');
    expect(withoutPassword('http://engine.internal:3000')).toBe('http://engine.internal:3000');
    expect(withoutPassword('')).toBe('');
  });
});
