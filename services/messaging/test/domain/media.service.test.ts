import { DomainError, parseAllowList, verifyMediaLink } from '@convo/kit';
import { listenOnLoopback, type Listening } from '@convo/test-support';
import { createServer } from 'node:http';
import type { MediaStore, StoredMedia } from '../../src/db/media.store';
import { MediaService, type MediaSettings } from '../../src/domain/media.service';

/** An in-memory store: the store's own behaviour is covered through GridFS in the send tests. */
class MemoryStore implements MediaStore {
  readonly files = new Map<string, StoredMedia & { data: Buffer }>();
  async put(data: Buffer, meta: { mimeType: string; fileName: string }) {
    const stored = { mediaId: `m${this.files.size + 1}`, mimeType: meta.mimeType, fileName: meta.fileName, size: data.length };
    this.files.set(stored.mediaId, { ...stored, data });
    return stored;
  }
  async get(id: string) {
    return this.files.get(id) ?? null;
  }
}

const PNG = Buffer.from('89504e470d0a1a0a', 'hex');

describe('MediaService', () => {
  let server: Listening;
  let base: string;
  const hits: string[] = [];

  beforeAll(async () => {
    server = await listenOnLoopback(
      createServer((req, res) => {
        hits.push(req.url!);
        if (req.url === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
        else if (req.url === '/moved') res.writeHead(302, { location: '/photo.png' }).end();
        else if (req.url === '/page') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
        else res.writeHead(404).end();
      }),
    );
    base = server.url;
  });
  afterAll(() => server.close());
  beforeEach(() => (hits.length = 0));

  const settings = (over: Partial<MediaSettings> = {}): MediaSettings => ({
    maxBytes: 1024,
    publicBaseUrl: 'https://api.example.com',
    linkSecret: 'secret',
    linkTtlSeconds: 3600,
    fetchConnectTimeoutMs: 1000,
    fetchTotalTimeoutMs: 2000,
    fetchAllowPrivate: parseAllowList('127.0.0.1'),
    ...over,
  });
  const media = (over: Record<string, unknown>) => ({ url: '', mimeType: '', fileName: '', data: Buffer.alloc(0), voice: false, ...over });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: DomainError) => e,
    );

  it('fetches a mediaUrl, takes the type from the response and the name from the path, and signs a link', async () => {
    const store = new MemoryStore();
    const r = await new MediaService(store, settings()).resolve(1, media({ url: `${base}/photo.png` }));
    expect(r).toMatchObject({ mimeType: 'image/png', fileName: 'photo.png', sourceUrl: `${base}/photo.png` });
    expect(store.files.get(r.mediaId)!.data).toEqual(PNG);
    const link = new URL(r.link);
    expect(link.origin).toBe('https://api.example.com');
    const ok = verifyMediaLink(
      { mediaId: r.mediaId, fileName: 'photo.png', expires: Number(link.searchParams.get('expires')) },
      link.searchParams.get('sig')!,
      'secret',
    );
    expect(ok).toBe(true);
  });

  it('does not follow a redirect', async () => {
    const err = await failure(new MediaService(new MemoryStore(), settings()).resolve(1, media({ url: `${base}/moved` })));
    expect(err.code).toBe('ERR_MEDIA_URL');
    expect(hits).toEqual(['/moved']);
  });

  it('refuses an answer that is not a media file, and an HTTP error', async () => {
    const svc = new MediaService(new MemoryStore(), settings());
    expect((await failure(svc.resolve(1, media({ url: `${base}/page` })))).code).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
    expect((await failure(svc.resolve(1, media({ url: `${base}/missing.png` })))).code).toBe('ERR_MEDIA_URL');
  });

  it('never reaches a private address without the allow list', async () => {
    const err = await failure(
      new MediaService(new MemoryStore(), settings({ fetchAllowPrivate: undefined })).resolve(1, media({ url: `${base}/photo.png` })),
    );
    expect(err.code).toBe('ERR_URL_BLOCKED');
    expect(hits).toEqual([]);
  });

  it('caps the size of fetched and sent files', async () => {
    const small = settings({ maxBytes: 4 });
    expect((await failure(new MediaService(new MemoryStore(), small).resolve(1, media({ url: `${base}/photo.png` })))).code).toBe(
      'ERR_PAYLOAD_TOO_LARGE',
    );
    expect(
      (await failure(new MediaService(new MemoryStore(), small).resolve(1, media({ data: PNG, mimeType: 'image/png', fileName: 'x' }))))
        .code,
    ).toBe('ERR_PAYLOAD_TOO_LARGE');
  });

  it('keeps the extension of the type and refuses path characters', async () => {
    const svc = new MediaService(new MemoryStore(), settings());
    expect((await svc.resolve(1, media({ data: PNG, mimeType: 'image/png', fileName: 'photo' }))).fileName).toBe('photo.png');
    expect((await svc.resolve(1, media({ data: PNG, mimeType: 'IMAGE/PNG; x=y', fileName: 'a.png' }))).fileName).toBe('a.png');
    for (const fileName of ['../x', 'a/b', 'a\\b', '.hidden']) {
      expect((await failure(svc.resolve(1, media({ data: PNG, mimeType: 'image/png', fileName })))).details).toEqual([
        { field: 'fileName', message: expect.any(String) },
      ]);
    }
  });
});
