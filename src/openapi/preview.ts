import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppModule, appControllers } from '../app.module';
import { loadConfig } from '../config/config';
import { API_PREFIX } from '../common/api-prefix';
import { buildOpenApiDocument } from './document';
import { apiRoutes } from './routes';

/**
 * The OpenAPI document the service serves, built with no database: a preview application reads the decorators and
 * instantiates no provider.
 */
export async function previewDocument(): Promise<OpenAPIObject> {
  const options = { config: loadConfig({}), databaseUrl: 'postgres://preview.invalid/none', http: true };
  const app = await NestFactory.create(AppModule.forRoot(options), { preview: true, logger: false, bodyParser: false });
  app.setGlobalPrefix(API_PREFIX);
  try {
    return buildOpenApiDocument(app, apiRoutes(appControllers()));
  } finally {
    await app.close();
  }
}

/** Runs a command-line script that writes what it makes of the document, saying why it could not. */
export function writeFromDocument(what: string, write: (document: OpenAPIObject) => void): void {
  previewDocument()
    .then(write)
    .catch((e: unknown) => {
      process.stderr.write(`could not write ${what}: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    });
}
