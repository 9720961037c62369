import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express from 'express';

/** Where the page lives, as toncenter serves its Swagger UI. */
export const DOCS_PAGE_PATH = '/api/v3/index.html';

/** One metrics route label for all the page's assets. */
const DOCS_ASSETS_ROUTE = '/api/v3/:docs_asset';

/** Swagger UI's own files the page loads, served from the installed package (no CDN). */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'text/javascript',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

// The package's `main` evaluates the whole browser bundle in Node; resolving package.json does not.
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

// Relative URLs throughout, so the page also works behind a proxy that serves /api/v3 elsewhere.
// validatorUrl null: by default the page of a public deployment sends its spec URL to validator.swagger.io.
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
  });
};
`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>tonstream: toncenter API v3</title>
    <link rel="stylesheet" type="text/css" href="swagger-ui.css">
    <link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;

/**
 * The v3 docs page (Swagger UI over `/api/v3/openapi.json`) and its assets, for mounting at /api/v3.
 * Only the allow-listed asset names are served; anything else falls through to the v3 404.
 */
export function docsPageRouter(): express.Router {
  const router = express.Router();
  router.get('/index.html', (_req, res) => {
    res.locals.route = DOCS_PAGE_PATH;
    res.type('html').send(PAGE);
  });
  router.get('/swagger-initializer.js', (_req, res) => {
    res.locals.route = DOCS_ASSETS_ROUTE;
    res.type('text/javascript').send(INITIALIZER);
  });
  router.get('/:asset', (req, res, next) => {
    const type = Object.hasOwn(ASSETS, req.params.asset) ? ASSETS[req.params.asset] : undefined;
    if (!type) return next();
    res.locals.route = DOCS_ASSETS_ROUTE;
    res.type(type).sendFile(join(SWAGGER_UI_DIR, req.params.asset), { maxAge: '1h' });
  });
  return router;
}

/** `GET /`: toncenter answers it with a 301 to its docs page (reference §1.1); so do we. */
export function redirectRootToDocs(_req: express.Request, res: express.Response): void {
  res.redirect(301, DOCS_PAGE_PATH);
}
