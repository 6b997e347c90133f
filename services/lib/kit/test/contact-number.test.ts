import { contactNumberDigits, isPhoneDigits } from '../src/contact-number';

describe('the contact-number rule', () => {
  it.each([
    ['+55 11 98765-4321', '5511987654321'],
    ['5511987654321', '5511987654321'],
    ['(11) 98765.4321', '11987654321'],
    ['12345678901234567', '12345678901234567'], // a Messenger PSID
  ])('%s → %s', (raw, digits) => expect(contactNumberDigits(raw)).toBe(digits));

  it.each(['', '1234567', '0551198765432', '+55 11 9876x4321', '123456789012345678901', '++5511987654321'])('refuses %j', (raw) =>
    expect(contactNumberDigits(raw)).toBeUndefined(),
  );

  it('tells a phone number (at most 15 digits) from a platform user id', () => {
    expect(isPhoneDigits(contactNumberDigits('+5511987654321'))).toBe(true);
    expect(isPhoneDigits(contactNumberDigits('12345678901234567'))).toBe(false);
    expect(isPhoneDigits(undefined)).toBe(false);
  });
});
