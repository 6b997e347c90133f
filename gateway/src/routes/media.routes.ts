import { forbidden, verifyMediaLink } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Clients } from '../clients';

/**
 * GET /media/{mediaId}/{fileName}?expires=&sig= — the signed links handed to providers that fetch
 * media by URL. No token: the signature is the credential, and it names one file until it expires.
 */
export async function mediaRoutes(app: FastifyInstance, { clients, secret }: { clients: Clients; secret: string }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/media/:mediaId/:fileName',
    {
      schema: {
        hide: true,
        params: Type.Object({ mediaId: Type.String({ maxLength: 64 }), fileName: Type.String({ maxLength: 256 }) }),
        querystring: Type.Object({ expires: Type.Integer({ minimum: 0, maximum: 1e13 }), sig: Type.String({ maxLength: 128 }) }),
      },
    },
    async (req, reply) => {
      const { mediaId, fileName } = req.params;
      if (!verifyMediaLink({ mediaId, fileName, expires: req.query.expires }, req.query.sig, secret))
        throw forbidden('Invalid or expired media link');
      const file = await clients.messaging.GetMedia({ mediaId });
      return reply
        .header('content-type', file.mimeType)
        .header('content-disposition', `inline; filename="${file.fileName.replace(/"/g, '')}"`)
        .header('cache-control', 'private, max-age=3600')
        .send(file.data);
    },
  );
}
