import { mediaLinkUrl, verifyMediaLink } from '../src/media-links';

describe('media links', () => {
  const link = { mediaId: '65f0c0ffee', fileName: 'invoice.pdf', expires: 2_000_000_000 };

  it('verifies a link it signed, parsed back from its URL', () => {
    const url = new URL(mediaLinkUrl('https://api.example.com/', link, 'k'));
    expect(url.pathname).toBe('/media/65f0c0ffee/invoice.pdf');
    expect(verifyMediaLink(link, url.searchParams.get('sig')!, 'k', 1_900_000_000)).toBe(true);
  });

  it('refuses another file, another expiry, another secret, or an expired link', () => {
    const sig = new URL(mediaLinkUrl('http://x', link, 'k')).searchParams.get('sig')!;
    expect(verifyMediaLink({ ...link, mediaId: 'other' }, sig, 'k', 0)).toBe(false);
    expect(verifyMediaLink({ ...link, expires: link.expires + 1 }, sig, 'k', 0)).toBe(false);
    expect(verifyMediaLink(link, sig, 'other-secret', 0)).toBe(false);
    expect(verifyMediaLink(link, sig, 'k', link.expires + 1)).toBe(false);
  });
});
