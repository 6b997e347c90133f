import { mediaTypeExtension, SUPPORTED_MEDIA_TYPES } from '../src/media-types';

describe('mediaTypeExtension', () => {
  it.each([
    ['image/jpeg', 'jpg'],
    ['audio/mpeg', 'mp3'],
    ['audio/mp4', 'm4a'],
    ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'],
    ['Audio/OGG; codecs=opus', 'ogg'],
  ])('names %p by %p', (type, ext) => {
    expect(mediaTypeExtension(type)).toBe(ext);
  });

  it('knows no extension for a type outside the table, inherited names included', () => {
    for (const type of ['image/bmp', 'application/octet-stream', '', 'constructor', '__proto__'])
      expect(mediaTypeExtension(type)).toBeUndefined();
  });

  it('lists every type it names', () => {
    expect(SUPPORTED_MEDIA_TYPES).toContain('image/png');
    expect(SUPPORTED_MEDIA_TYPES.every((t) => mediaTypeExtension(t))).toBe(true);
  });
});
