import { INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import express, { NextFunction, Request, Response } from 'express';
import pino from 'pino';
import { AppModule, AppOptions } from './app.module';
import { httpLogging } from './common/logger';
import { Codes } from './common/error-codes';
import { SERVICE_VERSION } from './version';
import { UsersService } from './auth/users.service';

export const API_PREFIX = 'api/public/v1';
const RAW_UPLOAD = /^\/api\/public\/v1\/file\/[^/]+\/upload$/;

function errorEnvelope(res: Response, code: string, message: string): void {
  res.status(200).json({ code, message, status: 'error' });
}

/** JSON body parsing whose faults become error envelopes (malformed: badRequest-1-0-4, too large: -3). */
function jsonBodies(limit: number) {
  const parse = express.json({ limit, strict: true });
  return (req: Request, res: Response, next: NextFunction) => {
    // A file upload's body is the file, whatever Content-Type the client sent: never parse it here.
    if (RAW_UPLOAD.test(req.path)) return next();
    return parse(req, res, (err?: { type?: string }) => {
      if (!err) return next();
      if (err.type === 'entity.too.large') return errorEnvelope(res, Codes.BodyTooLarge, `JSON body over ${limit} bytes`);
      return errorEnvelope(res, Codes.MalformedBody, 'malformed JSON body');
    });
  };
}

/** Builds the HTTP application (not listening yet): middleware, global prefix, OpenAPI document and page. */
export async function createApp(options: AppOptions, logger?: LoggerService): Promise<INestApplication> {
  // Without a logger (tests) requests still get their id, and nothing is written.
  const root = options.logger ?? pino({ level: 'silent' });
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ ...options, logger: root, http: true }), {
    bodyParser: false,
    logger: logger ?? false,
  });
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // First: every request gets its id and access line, including those refused by body parsing.
  app.use(httpLogging(root));
  app.use(jsonBodies(options.config.maxJsonBodyBytes));
  app.setGlobalPrefix(API_PREFIX);

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Signet API')
      .setDescription('Automated machine-learning analyses: projects, datasets, analyses, plots, predictions.')
      .setVersion(SERVICE_VERSION)
      .addBearerAuth()
      .addSecurityRequirements('bearer')
      .build(),
  );
  SwaggerModule.setup(`${API_PREFIX}/docs`, app, document, {
    jsonDocumentUrl: `${API_PREFIX}/openapi.json`,
    yamlDocumentUrl: `${API_PREFIX}/openapi.yaml`,
  });
  await app.init();
  await app.get(UsersService).bootstrapAdmin();
  return app;
}
