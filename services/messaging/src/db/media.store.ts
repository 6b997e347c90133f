import mongoose, { type Connection } from 'mongoose';

export interface StoredMedia {
  mediaId: string;
  mimeType: string;
  fileName: string;
  size: number;
}

/** Where media files live; GridFS here, an object store would fit the same interface. */
export interface MediaStore {
  put(data: Buffer, meta: { mimeType: string; fileName: string; tenantId: number }): Promise<StoredMedia>;
  get(mediaId: string): Promise<(StoredMedia & { data: Buffer }) | null>;
}

export class GridFsMediaStore implements MediaStore {
  private readonly bucket: mongoose.mongo.GridFSBucket;

  constructor(conn: Connection) {
    this.bucket = new mongoose.mongo.GridFSBucket(conn.db!, { bucketName: 'media' });
  }

  put(data: Buffer, meta: { mimeType: string; fileName: string; tenantId: number }): Promise<StoredMedia> {
    return new Promise((resolve, reject) => {
      const upload = this.bucket.openUploadStream(meta.fileName, {
        metadata: { mimeType: meta.mimeType, tenantId: meta.tenantId },
      });
      upload.once('error', reject);
      upload.once('finish', () =>
        resolve({ mediaId: upload.id.toString(), mimeType: meta.mimeType, fileName: meta.fileName, size: data.length }),
      );
      upload.end(data);
    });
  }

  async get(mediaId: string) {
    if (!mongoose.isValidObjectId(mediaId)) return null;
    const _id = new mongoose.Types.ObjectId(mediaId);
    const [file] = await this.bucket.find({ _id }).toArray();
    if (!file) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of this.bucket.openDownloadStream(_id)) chunks.push(chunk as Buffer);
    const meta = (file.metadata ?? {}) as { mimeType?: string };
    return {
      mediaId,
      mimeType: meta.mimeType ?? 'application/octet-stream',
      fileName: file.filename,
      size: file.length,
      data: Buffer.concat(chunks),
    };
  }
}
