/**
 * GENERATED from Canopy's OpenAPI document (packages/server/src/api/openapi.ts) by
 * clients/typescript/scripts/generate.ts with openapi-typescript. Do not edit: run
 * `npm run generate -w @canopy/client`. test/drift.test.ts fails while this file is stale.
 */

export interface paths {
    "/v1/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List projects
         * @description Requires the `projects:read` permission.
         *
         *     Filters combine: `status`, `search` (a case-insensitive substring of the name or description), and `bbox` (`west,south,east,north`: projects whose bounding box shares at least one point with the box, edges included; projects without a boundary never match), served by a spatial index; and `intersects` (a URL-encoded GeoJSON Point: the projects whose boundary covers it; or a Polygon or MultiPolygon of up to 1,000 positions: those sharing area with it), tested exactly. With `search` or `bbox`, `meta.total` counts matches up to 1,000. With `intersects`, pages are walked with cursors and one request tests at most 500 candidates: a page may hold fewer rows than `per_page` (even none) while `has_more` is true.
         */
        get: operations["getProjects"];
        put?: never;
        /**
         * Create a project
         * @description Requires the `projects:write` permission.
         *
         *     With a boundary, the answer carries `overlaps`: the account's other active and draft projects sharing at least 0.0001 ha with it, in geodesic hectares, and `project.overlap_detected` is emitted when there are any. Under the account's `overlap_policy: reject`, an overlapping boundary is refused with 409 CONFLICT and nothing is stored.
         */
        post: operations["postProjects"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a project from a GIS file
         * @description Requires the `projects:write` permission.
         *
         *     The body is the file itself, with its media type: GeoJSON (`application/geo+json`, `application/json`), KML (`application/vnd.google-earth.kml+xml`), KMZ (`application/vnd.google-earth.kmz`), a zipped Shapefile (`application/zip`) or a GeoPackage (`application/geopackage+sqlite3`) — or a `multipart/form-data` form with the file as its one file part named `file` (its file name and the part's media type are the hints; a `name` field may give the project's name when `?name=` is absent). The project's `name` (required unless the form gives it; optionally `description`, `slug`, `status`) are query parameters. Every polygon of the file becomes the boundary (several: a MultiPolygon), reprojected to WGS84 when the file says so. A file that cannot be read, or whose boundary is invalid, answers 422 with every problem in `details` (the validator's path, e.g. `geometry.coordinates[0][2]`, or `file`); nothing is stored. The project is then created as by `POST /v1/projects` (same validation, plan limits, `project.created` event, `Idempotency-Key`).
         */
        post: operations["postProjectsImport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/imports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a GIS file's features as projects (a job)
         * @description Requires the `projects:write` permission.
         *
         *     The body is the file, as for `POST /v1/projects/import` (raw, or the `file` part of a `multipart/form-data` form). The file is read at once, off the event loop; the answer is 202 with the import, whose projects are then created in the background: follow it with `GET /v1/imports/{import_id}` (progress, per-feature results, totals), stop it with `POST /v1/imports/{import_id}/cancel`; `import.completed` is emitted when it ends. `mode=per_feature` (the default): each feature becomes its own project as by `POST /v1/projects` (validation, overlaps, plan limits, `project.created`), named from `name_field` and described from `description_field`; a refused feature stores nothing and is listed with its problems. `mode=merge`: every polygon of the file one project. `dry_run=true`: a preview (status `completed`, results `valid` or `refused`), nothing else stored. A file that cannot be read answers 422 with every problem; one whose valid features would take the account past its plan's hectares, or past its plan's requests per day (one per feature), answers 403 and nothing is stored; while an import of the account runs, another answers 429. Docs: docs/gis.md, "Bulk imports".
         */
        post: operations["postImports"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/imports/{import_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An import's status, progress and per-feature results
         * @description Requires the `projects:read` permission.
         *
         *     Results come in file order, `results_per_page` at a time (default 100, at most 1,000): pass `next_results_after` as `results_after` for the next page. An import whose server stopped while it ran is `failed`, with the reason in `error`.
         */
        get: operations["getImportsByImportId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/imports/{import_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a running import
         * @description Requires the `projects:write` permission.
         *
         *     The feature at hand is finished; the projects created stay, the features not reached are not imported. An import that has ended already answers 409 CONFLICT.
         */
        post: operations["postImportsByImportIdCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export projects as GeoJSON, KML, zipped Shapefile or GeoPackage
         * @description Requires the `projects:read` permission.
         *
         *     The list's filters (`status`, `search`, `bbox`, `intersects`) and order (`sort`, `order`) as in `GET /v1/projects`, as one file: a GeoJSON FeatureCollection (`format=geojson`, the default; `application/geo+json`), a KML document (`format=kml`), a zipped Shapefile (`format=shapefile`; `application/zip`) or a GeoPackage (`format=geopackage`), one feature per project, with `Content-Disposition: attachment`. GeoJSON and KML are streamed (chunked), at most 10,000 projects and 256 MiB per file: `X-Total-Count` says how many matched; the end of the file says whether it holds them all (`truncated`, `next_cursor`: GeoJSON members, KML `Document/ExtendedData`); pass `next_cursor` as `cursor` with the same filters and order for the rest (`page` is refused with 400 on `query.page`: a file always starts at its cursor). A response cut short is a failure, not a file. A zipped Shapefile or GeoPackage is built whole in an export worker and sent with its length, from at most 64 MiB of project text (and the same project cap): `X-Canopy-Truncated` and `X-Canopy-Next-Cursor` say whether it holds the whole list, as does the file (`canopy_export.txt` in the zip, the `canopy_export` table). Attributes are named as the import reads them (`name`). Docs: docs/gis.md.
         */
        get: operations["getProjectsExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a project
         * @description Requires the `projects:read` permission.
         */
        get: operations["getProjectsByProjectId"];
        /**
         * Update a project (partial)
         * @description Requires the `projects:write` permission.
         *
         *     A new boundary (or a status leaving `archived`) is compared with the account's other projects as on create: `overlaps` in the answer, `project.overlap_detected`, and 409 CONFLICT under `overlap_policy: reject` (nothing changes).
         */
        put: operations["putProjectsByProjectId"];
        post?: never;
        /**
         * Delete an archived project
         * @description Requires the `projects:write` permission.
         */
        delete: operations["deleteProjectsByProjectId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}/boundary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Replace a project's boundary from a GIS file
         * @description Requires the `projects:write` permission.
         *
         *     The body is the file itself, with its media type (the formats of `POST /v1/projects/import`), or a `multipart/form-data` form with the file as its `file` part. Problems answer 422 with every problem in `details` and leave the project as it was; the boundary is then saved as by `PUT /v1/projects/{project_id}` with `geometry` (same validation, `project.updated` event).
         */
        put: operations["putProjectsByProjectIdBoundary"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export a project as GeoJSON, KML, zipped Shapefile or GeoPackage
         * @description Requires the `projects:read` permission.
         *
         *     A GeoJSON FeatureCollection with the project as its one feature (`format=geojson`, the default; `application/geo+json`), a KML document (`format=kml`), a zipped Shapefile in WGS84 with its `.prj` and a UTF-8 `.cpg` (`format=shapefile`; `application/zip`) or a GeoPackage (`format=geopackage`; `application/geopackage+sqlite3`), with `Content-Disposition: attachment`. Re-importing any of them gives the same area.
         */
        get: operations["getProjectsByProjectIdExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Archive a project
         * @description Requires the `projects:write` permission.
         */
        post: operations["postProjectsByProjectIdArchive"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restore an archived project
         * @description Requires the `projects:write` permission.
         */
        post: operations["postProjectsByProjectIdRestore"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}/overlaps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the projects sharing area with a project
         * @description Requires the `projects:read` permission.
         *
         *     The account's other active and draft projects whose boundaries share at least 0.0001 ha with this project's, with the shared area in geodesic hectares, in name order (an archived project, or one without a boundary, overlaps nothing). Candidates come from the spatial index; one request examines at most 500 of them and spends at most 2 s measuring: a page may then hold fewer rows than `per_page` (even none) while `has_more` is true. Walk pages with `cursor=<meta.next_cursor>` (`page` > 1 is a 400 on `query.page`); `meta.total` is exact only when one request examined every candidate.
         */
        get: operations["getProjectsByProjectIdOverlaps"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}/boundaries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a project's boundary versions, newest first
         * @description Requires the `projects:read` permission.
         *
         *     Every change of the project's boundary (create, update, file import, dashboard, version restore) is a numbered version: who made it (`changed_by`), when, how (`via`, and the file's format), and the hectares before and after. Listed without the boundaries themselves; walk pages with `cursor=<meta.next_cursor>`. The newest 50 versions are kept.
         */
        get: operations["getProjectsByProjectIdBoundaries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}/boundaries/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one boundary version, with its boundary (GeoJSON)
         * @description Requires the `projects:read` permission.
         */
        get: operations["getProjectsByProjectIdBoundariesByVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}/boundaries/{version}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export one boundary version as GeoJSON, KML, zipped Shapefile or GeoPackage
         * @description Requires the `projects:read` permission.
         *
         *     The project with this version's boundary and hectares, as `GET /v1/projects/{project_id}/export` writes a project (`format=geojson`, the default, `kml`, `shapefile` or `geopackage`), named `<slug>-v<version>`.
         */
        get: operations["getProjectsByProjectIdBoundariesByVersionExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}/boundaries/{version}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set a project's boundary back to a version's
         * @description Requires the `projects:write` permission.
         *
         *     A boundary update as by `PUT /v1/projects/{project_id}` with the version's boundary: the plan's hectares, the overlap comparison (`overlaps`, 409 under `overlap_policy: reject`) and `project.updated` apply, and the restore becomes a new version (`via: version_restore`, `restored_from`). Answers the project.
         */
        post: operations["postProjectsByProjectIdBoundariesByVersionRestore"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tiles/{z}/{x}/{y}.mvt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A vector tile of the account's projects
         * @description Requires the `projects:read` permission.
         *
         *     A Mapbox Vector Tile (version 2, extent 4096) of the account's projects meeting tile z/x/y (XYZ, y from the north). Up to 200 projects: a `projects` layer of their boundaries, clipped to the tile and simplified for its zoom (largest first, up to 1 MiB of boundary text; the others as points in `projects_points`). More projects, up to 500: a `projects_points` layer only, the centres of their boxes. More still: a `projects_clusters` layer, one point per cell of a 16×16 to 32×32 grid over the tile, with the `count` of projects and their `area_hectares`. Boundaries and points carry `id`, `name`, `status` and `area_hectares` (points also `count: 1`); `X-Tile-Mode` (`boundaries`, `points` or `clusters`) says which layer. Revalidate with `If-None-Match`: the `ETag` changes with any write to a project of the tile (304 when it has not). z from 0 to 22, x and y from 0 to 2^z − 1; otherwise 400 naming `path.z`, `path.x` or `path.y`.
         */
        get: operations["getTilesByZByXByYMvt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}/assets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a project's assets
         * @description Requires the `assets:read` permission.
         */
        get: operations["getProjectsByProjectIdAssets"];
        put?: never;
        /**
         * Create an asset
         * @description Requires the `assets:write` permission.
         */
        post: operations["postProjectsByProjectIdAssets"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{project_id}/assets/{asset_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an asset
         * @description Requires the `assets:read` permission.
         */
        get: operations["getProjectsByProjectIdAssetsByAssetId"];
        /**
         * Update an asset (partial)
         * @description Requires the `assets:write` permission.
         */
        put: operations["putProjectsByProjectIdAssetsByAssetId"];
        post?: never;
        /**
         * Delete an asset
         * @description Requires the `assets:write` permission.
         */
        delete: operations["deleteProjectsByProjectIdAssetsByAssetId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List members
         * @description Requires the `members:read` permission.
         */
        get: operations["getAccountMembers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/members/invite": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Invite a member
         * @description Requires the `members:write` permission.
         *
         *     Answers the member (status `invited`) with the invitation link's one-time `token` and `expires_at`, for delivering the invitation yourself.
         */
        post: operations["postAccountMembersInvite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/members/{member_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change a member's role
         * @description Requires the `members:write` permission.
         */
        put: operations["putAccountMembersByMemberId"];
        post?: never;
        /**
         * Remove a member
         * @description Requires the `members:write` permission.
         */
        delete: operations["deleteAccountMembersByMemberId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the account
         * @description Any valid token.
         */
        get: operations["getAccount"];
        /**
         * Update the account (name, overlap policy)
         * @description Requires the `admin` permission.
         */
        put: operations["putAccount"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage statistics of the billing period
         * @description Requires the `billing:read` permission.
         */
        get: operations["getAccountUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhooks
         * @description Requires the `admin` permission.
         */
        get: operations["getWebhooks"];
        put?: never;
        /**
         * Create a webhook (the secret is returned only here)
         * @description Requires the `admin` permission.
         */
        post: operations["postWebhooks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook
         * @description Requires the `admin` permission.
         */
        get: operations["getWebhooksByWebhookId"];
        /**
         * Update a webhook
         * @description Requires the `admin` permission.
         */
        put: operations["putWebhooksByWebhookId"];
        post?: never;
        /**
         * Delete a webhook
         * @description Requires the `admin` permission.
         */
        delete: operations["deleteWebhooksByWebhookId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Delivery log, newest first
         * @description Requires the `admin` permission.
         */
        get: operations["getWebhooksByWebhookIdLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a signed webhook.test event now; answers its log entry
         * @description Requires the `admin` permission.
         */
        post: operations["postWebhooksByWebhookIdTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhook_id}/logs/{log_id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver a logged event again now (same event id, a new attempt); answers the new log entry
         * @description Requires the `admin` permission.
         */
        post: operations["postWebhooksByWebhookIdLogsByLogIdRedeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's events, newest first
         * @description Requires the `admin` permission.
         */
        get: operations["getEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Check the presented token
         * @description Any valid token.
         */
        get: operations["getAuthVerify"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The member this credential acts for: id, name, email, role, account (OAuth tokens need the profile scope; a service token has none: 404)
         * @description Any valid token.
         */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "project.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * project.created event
         * @description A project was created.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookProjectCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "project.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * project.updated event
         * @description A project's name, description, slug, status or boundary changed; `data` is the project after the change.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookProjectUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "project.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * project.deleted event
         * @description A project (and its assets) was deleted; `data` is the project as it was before.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookProjectDeleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "project.archived": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * project.archived event
         * @description A project was archived (its hectares stop counting toward usage); `data` is the project after the change.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookProjectArchived"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "project.restored": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * project.restored event
         * @description An archived project was restored; `data` is the project after the change.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookProjectRestored"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "asset.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * asset.created event
         * @description An asset was added to a project.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookAssetCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "asset.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * asset.updated event
         * @description An asset changed; `data` is the asset after the change.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookAssetUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "asset.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * asset.deleted event
         * @description An asset was deleted; `data` is the asset as it was before.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookAssetDeleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "asset.status_changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * asset.status_changed event
         * @description An asset's status changed (sent with its `asset.updated`).
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookAssetStatusChanged"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "member.invited": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * member.invited event
         * @description A member was invited; `data` is the member (status `invited`), without the invitation token.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookMemberInvited"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "member.joined": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * member.joined event
         * @description An invited member accepted the invitation.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookMemberJoined"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "member.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * member.updated event
         * @description A member's role changed.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookMemberUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "member.removed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * member.removed event
         * @description A member (or a pending invitation) was removed; `data` is the member as they were.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookMemberRemoved"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "subscription.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * subscription.created event
         * @description Not emitted by Canopy itself: a billing integration may send it when a subscription starts.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookSubscriptionCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "subscription.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * subscription.updated event
         * @description The account's plan changed.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookSubscriptionUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "subscription.canceled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * subscription.canceled event
         * @description Not emitted by Canopy itself: a billing integration may send it when a subscription ends.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookSubscriptionCanceled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "invoice.paid": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * invoice.paid event
         * @description Not emitted by Canopy itself: a billing integration may send it when an invoice is paid.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookInvoicePaid"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "invoice.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * invoice.failed event
         * @description Not emitted by Canopy itself: a billing integration may send it when a payment fails.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookInvoiceFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "usage.threshold_reached": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * usage.threshold_reached event
         * @description Usage of hectares, members or API requests reached 75%, 90% or 100% of the plan's limit.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookUsageThresholdReached"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "usage.limit_exceeded": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * usage.limit_exceeded event
         * @description A change was refused because it would go over the plan's hectare or member limit.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookUsageLimitExceeded"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "project.overlap_detected": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * project.overlap_detected event
         * @description Canopy's own event: a project's boundary overlaps other projects of the account (sent after its `project.created` or `project.updated`).
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookProjectOverlapDetected"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "import.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * import.completed event
         * @description Canopy's own event: a bulk import (`POST /v1/imports`) ended — completed, failed or cancelled — with its totals (not sent for a preview).
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookImportCompleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * webhook.test event
         * @description A test event, sent by `POST /webhooks/{webhook_id}/test` to that webhook only.
         *
         *     Canopy POSTs each event to every enabled webhook subscribed to its type (or to `*`), as JSON, and retries with
         *     backoff until the receiver answers 2xx. Each request is signed twice:
         *
         *     - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the **raw request body** keyed by the webhook's secret
         *       (its UTF-8 bytes). Recompute it over the bytes you received (before parsing) and compare in constant time.
         *     - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>` over
         *       `<webhook-id>.<webhook-timestamp>.<raw body>`, so the Standard Webhooks libraries verify it; reject
         *       timestamps more than 5 minutes old to stop replays.
         *
         *     `X-Service-Event-Id` and `X-Service-Event-Type` name the event; the same event id is sent again on retries and
         *     redeliveries, so receivers can drop duplicates. Answer 2xx quickly and do the work afterwards.
         */
        post: operations["webhookWebhookTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /**
         * @description [longitude, latitude] (WGS84 degrees), optionally with an altitude
         * @example [
         *       -122.4,
         *       37.8
         *     ]
         */
        GeoJsonPosition: number[];
        /**
         * @description GeoJSON Polygon (RFC 7946 §3.1.6)
         * @example {
         *       "type": "Polygon",
         *       "coordinates": [
         *         [
         *           [
         *             -122.5,
         *             37.7
         *           ],
         *           [
         *             -122.4,
         *             37.7
         *           ],
         *           [
         *             -122.4,
         *             37.8
         *           ],
         *           [
         *             -122.5,
         *             37.8
         *           ],
         *           [
         *             -122.5,
         *             37.7
         *           ]
         *         ]
         *       ]
         *     }
         */
        GeoJsonPolygon: {
            /** @enum {string} */
            type: "Polygon";
            coordinates: components["schemas"]["GeoJsonPosition"][][];
        } & {
            [key: string]: unknown;
        };
        /** @description GeoJSON MultiPolygon (RFC 7946 §3.1.7) */
        GeoJsonMultiPolygon: {
            /** @enum {string} */
            type: "MultiPolygon";
            coordinates: components["schemas"]["GeoJsonPosition"][][][];
        } & {
            [key: string]: unknown;
        };
        /**
         * @description GeoJSON Point (RFC 7946 §3.1.2)
         * @example {
         *       "type": "Point",
         *       "coordinates": [
         *         -122.45,
         *         37.75
         *       ]
         *     }
         */
        GeoJsonPoint: {
            /** @enum {string} */
            type: "Point";
            coordinates: components["schemas"]["GeoJsonPosition"];
        } & {
            [key: string]: unknown;
        };
        /**
         * @example {
         *       "error": {
         *         "code": "VALIDATION_ERROR",
         *         "message": "The request body is invalid",
         *         "details": [
         *           {
         *             "field": "name",
         *             "message": "must not be empty"
         *           }
         *         ]
         *       },
         *       "meta": {
         *         "request_id": "req_1a2b3c4d5e"
         *       }
         *     }
         */
        Error: {
            error: {
                /** @enum {string} */
                code: "VALIDATION_ERROR" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "CONFLICT" | "RATE_LIMITED" | "INTERNAL_ERROR";
                message: string;
                details: ({
                    field: string;
                    message: string;
                } & {
                    [key: string]: unknown;
                })[];
            } & {
                [key: string]: unknown;
            };
            meta: {
                request_id: string;
            } & {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        ProjectOverlap: {
            project_id: string;
            name: string;
            /** @description The shared area in geodesic hectares, 4 decimals */
            overlap_hectares: number;
        } & {
            [key: string]: unknown;
        };
        /** @description Present in the answer of a create or update that set, changed or restored a boundary counted toward usage: the account's other active and draft projects whose boundaries share at least 0.0001 ha with it, largest first */
        OverlapReport: {
            overlaps: components["schemas"]["ProjectOverlap"][];
            /** @description False when not every nearby project was compared (more than 50 of them, or the time budget ran out) */
            complete: boolean;
        } & {
            [key: string]: unknown;
        };
        /**
         * @example {
         *       "id": "proj_9f2c1a7b4e",
         *       "name": "Redwood Creek restoration",
         *       "slug": "redwood-creek-restoration",
         *       "description": null,
         *       "geometry": {
         *         "type": "Polygon",
         *         "coordinates": [
         *           [
         *             [
         *               -122.5,
         *               37.7
         *             ],
         *             [
         *               -122.4,
         *               37.7
         *             ],
         *             [
         *               -122.4,
         *               37.8
         *             ],
         *             [
         *               -122.5,
         *               37.8
         *             ],
         *             [
         *               -122.5,
         *               37.7
         *             ]
         *           ]
         *         ]
         *       },
         *       "area_hectares": 9790.1234,
         *       "bbox": [
         *         -122.5,
         *         37.7,
         *         -122.4,
         *         37.8
         *       ],
         *       "status": "active",
         *       "created_at": "2026-01-05T10:00:00.000Z",
         *       "updated_at": "2026-01-05T10:00:00.000Z"
         *     }
         */
        Project: {
            id: string;
            name: string;
            slug: string;
            description: string | null;
            geometry: (components["schemas"]["GeoJsonPolygon"] | components["schemas"]["GeoJsonMultiPolygon"]) | null;
            /** @description Geodesic area of the boundary in hectares, rounded to 4 decimals; 0 without a boundary */
            area_hectares: number;
            bbox: [
                number,
                number,
                number,
                number
            ] | null;
            /** @enum {string} */
            status: "active" | "archived" | "draft";
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            overlaps?: components["schemas"]["OverlapReport"];
        } & {
            [key: string]: unknown;
        };
        ImportFeatureResult: {
            /** @description The feature's place in the file, from 0 */
            position: number;
            /** @description How the file names the feature, e.g. `feature 3 "North block"` */
            feature: string;
            /**
             * @description `created`: its project is `project_id`; `refused`: nothing was stored, see `problems`; `valid` (a preview): it would be created, with the `overlaps` its create would report
             * @enum {string}
             */
            outcome: "created" | "refused" | "valid";
            /** @description The project's name (given, or that it would have) */
            name: string | null;
            project_id: string | null;
            area_hectares: number | null;
            /** @description Why the feature was refused: the validator's path and message, naming the feature */
            problems: ({
                field: string;
                message: string;
            } & {
                [key: string]: unknown;
            })[];
            overlaps?: components["schemas"]["OverlapReport"];
        } & {
            [key: string]: unknown;
        };
        Import: {
            id: string;
            /** @enum {string} */
            status: "running" | "completed" | "failed" | "cancelled";
            /** @enum {string} */
            mode: "per_feature" | "merge";
            /** @description A preview: the results say what an import would do; nothing was stored */
            dry_run: boolean;
            file: {
                name: string | null;
                format: string | null;
                source_crs: string | null;
            } & {
                [key: string]: unknown;
            };
            progress: {
                /** @description Features read from the file */
                features_read: number;
                /** @description Features dealt with so far */
                done: number;
                created: number;
                refused: number;
            } & {
                [key: string]: unknown;
            };
            totals: {
                features: number;
                created: number;
                refused: number;
                /** @description Hectares of the projects created (a preview: that would be) */
                hectares: number;
            } & {
                [key: string]: unknown;
            };
            /** @description Why the import failed, when it did */
            error: string | null;
            /** @description Per-feature results in file order, a page at a time */
            results: components["schemas"]["ImportFeatureResult"][];
            /** @description Pass as `results_after` for the next page of results; null at the end */
            next_results_after: number | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            completed_at: string | null;
        } & {
            [key: string]: unknown;
        };
        BoundaryChangedBy: {
            /** @description api_key, service_token, oauth, member (the dashboard) or system (an operator) */
            kind: string;
            user_id: string | null;
            credential_id: string | null;
        } & {
            [key: string]: unknown;
        };
        BoundaryVersionSummary: {
            /** @description 1, 2, 3… per project, in the order the boundary changed */
            version: number;
            project_id: string;
            /** @description The project's hectares before this change */
            area_hectares_before: number;
            /** @description The project's hectares after it (this version's boundary) */
            area_hectares_after: number;
            /**
             * @description How the change came in: create (POST /v1/projects), import (POST /v1/projects/import), update (PUT /v1/projects/{id}), boundary_file (PUT /v1/projects/{id}/boundary), dashboard, dashboard_file (the dashboard's upload), version_restore, or initial (the boundary the project had before its history began)
             * @enum {string}
             */
            via: "initial" | "create" | "import" | "update" | "boundary_file" | "dashboard" | "dashboard_file" | "version_restore";
            /** @description The file's format when the boundary came from a file */
            file_format: string | null;
            /** @description The version a version_restore brought back */
            restored_from: number | null;
            changed_by: components["schemas"]["BoundaryChangedBy"] | null;
            /** Format: date-time */
            created_at: string;
        } & {
            [key: string]: unknown;
        };
        BoundaryVersion: {
            /** @description 1, 2, 3… per project, in the order the boundary changed */
            version: number;
            project_id: string;
            /** @description The project's hectares before this change */
            area_hectares_before: number;
            /** @description The project's hectares after it (this version's boundary) */
            area_hectares_after: number;
            /**
             * @description How the change came in: create (POST /v1/projects), import (POST /v1/projects/import), update (PUT /v1/projects/{id}), boundary_file (PUT /v1/projects/{id}/boundary), dashboard, dashboard_file (the dashboard's upload), version_restore, or initial (the boundary the project had before its history began)
             * @enum {string}
             */
            via: "initial" | "create" | "import" | "update" | "boundary_file" | "dashboard" | "dashboard_file" | "version_restore";
            /** @description The file's format when the boundary came from a file */
            file_format: string | null;
            /** @description The version a version_restore brought back */
            restored_from: number | null;
            changed_by: components["schemas"]["BoundaryChangedBy"] | null;
            /** Format: date-time */
            created_at: string;
            geometry: (components["schemas"]["GeoJsonPolygon"] | components["schemas"]["GeoJsonMultiPolygon"]) | null;
            bbox: [
                number,
                number,
                number,
                number
            ] | null;
        } & {
            [key: string]: unknown;
        };
        Asset: {
            id: string;
            project_id: string;
            name: string;
            /** @enum {string} */
            type: "equipment" | "monitoring_station" | "point_of_interest" | "sensor" | "other";
            location: components["schemas"]["GeoJsonPoint"] | null;
            /** @enum {string} */
            status: "active" | "inactive" | "maintenance" | "retired";
            /** @description Free-form JSON object (any keys) */
            metadata: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        } & {
            [key: string]: unknown;
        };
        Member: {
            id: string;
            email: string;
            name: string | null;
            /** @enum {string} */
            role: "owner" | "admin" | "editor" | "viewer";
            permissions: string[];
            /** @enum {string} */
            status: "active" | "invited";
            joined_at: string | null;
            last_active_at: string | null;
        } & {
            [key: string]: unknown;
        };
        InvitedMember: {
            id: string;
            email: string;
            name: string | null;
            /** @enum {string} */
            role: "owner" | "admin" | "editor" | "viewer";
            permissions: string[];
            /** @enum {string} */
            status: "active" | "invited";
            joined_at: string | null;
            last_active_at: string | null;
            invitation: {
                /** @description One-time token of the invitation link (/invitations/accept?token=…); shown only here */
                token: string;
                /** Format: date-time */
                expires_at: string;
            } & {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        Account: {
            id: string;
            name: string;
            slug: string;
            /** @enum {string} */
            type: "team";
            /** @enum {string} */
            plan: "free" | "pro" | "enterprise";
            /**
             * @description warn: writes succeed and report overlaps (and emit project.overlap_detected); reject: a write whose boundary overlaps another active or draft project is refused with 409 CONFLICT
             * @enum {string}
             */
            overlap_policy: "warn" | "reject";
            usage: {
                hectares: number;
                projects: number;
                members: number;
            } & {
                [key: string]: unknown;
            };
            /** Format: date-time */
            created_at: string;
        } & {
            [key: string]: unknown;
        };
        UsageStatistics: {
            period: {
                /** Format: date-time */
                start: string;
                /** Format: date-time */
                end: string;
            } & {
                [key: string]: unknown;
            };
            hectares: {
                current: number;
                limit: number;
                percentage: number;
            } & {
                [key: string]: unknown;
            };
            projects: {
                active: number;
                archived: number;
                total: number;
            } & {
                [key: string]: unknown;
            };
            members: {
                current: number;
                limit: number;
            } & {
                [key: string]: unknown;
            };
            api_requests: {
                current: number;
                limit: number;
            } & {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        Webhook: {
            id: string;
            url: string;
            events: string[];
            description: string | null;
            enabled: boolean;
            disabled_reason: string | null;
            disabled_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description The signing secret: only in the create response */
            secret?: string;
        } & {
            [key: string]: unknown;
        };
        DeliveryLog: {
            id: string;
            event_id: string;
            event_type: string;
            /** @enum {string} */
            status: "success" | "failed" | "pending" | "canceled";
            attempt: number;
            response_code: number | null;
            response_time_ms: number | null;
            error: string | null;
            error_class: string | null;
            delivered_at: string | null;
            next_retry_at: string | null;
        } & {
            [key: string]: unknown;
        };
        Event: {
            id: string;
            /** @enum {string} */
            type: "project.created" | "project.updated" | "project.deleted" | "project.archived" | "project.restored" | "asset.created" | "asset.updated" | "asset.deleted" | "asset.status_changed" | "member.invited" | "member.joined" | "member.updated" | "member.removed" | "subscription.created" | "subscription.updated" | "subscription.canceled" | "invoice.paid" | "invoice.failed" | "usage.threshold_reached" | "usage.limit_exceeded" | "project.overlap_detected" | "import.completed" | "webhook.test";
            /** Format: date-time */
            created_at: string;
            /** @description The event's subject (project, asset, member, …) as of the event */
            data: {
                [key: string]: unknown;
            };
            account: {
                id: string;
                name: string;
            } & {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        Verification: {
            valid: boolean;
            /** @enum {string} */
            type: "api_key" | "service_token" | "oauth";
            permissions: string[];
            account_id: string;
            expires_at: string | null;
        } & {
            [key: string]: unknown;
        };
        Me: {
            id: string;
            name: string | null;
            email: string;
            /** @enum {string} */
            role: "owner" | "admin" | "editor" | "viewer";
            account_id: string;
        } & {
            [key: string]: unknown;
        };
        /** @description The project as created (the spec's fields; no geometry or bbox: fetch the project for them) and its creator */
        ProjectCreatedEventData: {
            id: string;
            name: string;
            slug: string;
            description: string | null;
            /** @description Geodesic area of the boundary in hectares, rounded to 4 decimals; 0 without a boundary */
            area_hectares: number;
            /** @enum {string} */
            status: "active" | "archived" | "draft";
            /** Format: date-time */
            created_at: string;
            /** @description The member who created the project (their user id and email); null when no current member is behind the call (a library call as the system, or a credential whose creator has since left) */
            created_by: ({
                id: string;
                email: string;
            } & {
                [key: string]: unknown;
            }) | null;
        } & {
            [key: string]: unknown;
        };
        /** @description The asset as created (the spec's fields; no metadata: fetch the asset for it) */
        AssetCreatedEventData: {
            id: string;
            project_id: string;
            name: string;
            /** @enum {string} */
            type: "equipment" | "monitoring_station" | "point_of_interest" | "sensor" | "other";
            location: components["schemas"]["GeoJsonPoint"] | null;
            /** @enum {string} */
            status: "active" | "inactive" | "maintenance" | "retired";
            /** Format: date-time */
            created_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Sent with `asset.updated` when an update changed the asset's status: the asset after the change and its previous status */
        AssetStatusChangedEventData: {
            id: string;
            project_id: string;
            name: string;
            /** @enum {string} */
            type: "equipment" | "monitoring_station" | "point_of_interest" | "sensor" | "other";
            location: components["schemas"]["GeoJsonPoint"] | null;
            /** @enum {string} */
            status: "active" | "inactive" | "maintenance" | "retired";
            /** Format: date-time */
            created_at: string;
            /**
             * @description The asset's status before the change
             * @enum {string}
             */
            previous_status: "active" | "inactive" | "maintenance" | "retired";
        } & {
            [key: string]: unknown;
        };
        /** @description The member who accepted their invitation */
        MemberJoinedEventData: {
            id: string;
            email: string;
            name: string | null;
            /** @enum {string} */
            role: "owner" | "admin" | "editor" | "viewer";
            joined_at: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description The member after the role change, and their previous role */
        MemberUpdatedEventData: {
            id: string;
            email: string;
            name: string | null;
            /** @enum {string} */
            role: "owner" | "admin" | "editor" | "viewer";
            permissions: string[];
            /** @enum {string} */
            status: "active" | "invited";
            joined_at: string | null;
            last_active_at: string | null;
            /**
             * @description The member's role before the change
             * @enum {string}
             */
            previous_role: "owner" | "admin" | "editor" | "viewer";
        } & {
            [key: string]: unknown;
        };
        /** @description Not emitted by Canopy itself: an embedding application's billing integration sends this event through Canopy's billing port (`canopy.account.billingEvent`) with data of its own (for example an amount and currency), delivered as given */
        BillingEventData: {
            [key: string]: unknown;
        };
        /** @description The account's plan was changed (library call or `canopy account set-plan`) */
        SubscriptionUpdatedEventData: {
            account_id: string;
            /**
             * @description The plan now
             * @enum {string}
             */
            plan: "free" | "pro" | "enterprise";
            /**
             * @description The plan before the change
             * @enum {string}
             */
            previous_plan: "free" | "pro" | "enterprise";
        } & {
            [key: string]: unknown;
        };
        /** @description Sent once per metric, threshold and billing period */
        UsageThresholdReachedEventData: {
            /** @enum {string} */
            metric: "hectares" | "members" | "api_requests";
            /**
             * @description The percentage of the limit reached
             * @enum {number}
             */
            threshold: 75 | 90 | 100;
            /** @description The metric's value when the threshold was reached (hectares to 4 decimals) */
            current: number;
            /** @description The plan's limit for the metric */
            limit: number;
            /** @description The billing period (a calendar month, UTC) */
            period: {
                /** Format: date-time */
                start: string;
                /** Format: date-time */
                end: string;
            } & {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        /** @description A create or update was refused (403) because it would take the metric over the plan's limit; nothing was changed */
        UsageLimitExceededEventData: {
            /** @enum {string} */
            metric: "hectares" | "members";
            /** @description The metric's value before the refused change */
            current: number;
            /** @description The value the change would have taken it to */
            requested: number;
            /** @description The plan's limit for the metric */
            limit: number;
        } & {
            [key: string]: unknown;
        };
        /** @description Sent after a create or update that set, changed or restored a boundary sharing at least 0.0001 ha with other active or draft projects of the account (never when there is no overlap) */
        ProjectOverlapDetectedEventData: {
            /** @description The project whose boundary was set, changed or restored */
            project: {
                id: string;
                name: string;
                slug: string;
                /** @description Geodesic area of the boundary in hectares, rounded to 4 decimals; 0 without a boundary */
                area_hectares: number;
                /** @enum {string} */
                status: "active" | "archived" | "draft";
            } & {
                [key: string]: unknown;
            };
            overlaps: components["schemas"]["ProjectOverlap"][];
            /** @description False when not every nearby project was compared (more than 50 of them, or the time budget ran out) */
            complete: boolean;
        } & {
            [key: string]: unknown;
        };
        /** @description A bulk import ended: completed, failed (with the reason) or cancelled */
        ImportCompletedEventData: {
            /** @description The import (`GET /v1/imports/{id}` lists its per-feature results) */
            id: string;
            /** @enum {string} */
            status: "completed" | "failed" | "cancelled";
            /** @enum {string} */
            mode: "per_feature" | "merge";
            file: {
                name: string | null;
                format: string | null;
                source_crs: string | null;
            } & {
                [key: string]: unknown;
            };
            /** @description Features read from the file */
            features: number;
            /** @description Projects created */
            created: number;
            /** @description Features refused (nothing stored for them) */
            refused: number;
            /** @description Hectares of the projects created */
            hectares: number;
            /** @description Why the import failed, when it did */
            error: string | null;
            completed_at: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description Sent only to the webhook tested; not subscribable */
        WebhookTestEventData: {
            /** @description The webhook tested */
            webhook_id: string;
            message: string;
        } & {
            [key: string]: unknown;
        };
        ResponseMeta: {
            request_id: string;
            /** Format: date-time */
            timestamp: string;
        };
        ListMeta: {
            /** @description Matching rows; at least this many when total_exact is false */
            total: number;
            /** @description False when counting stopped at 10,000 (filtered or searched lists) */
            total_exact?: boolean;
            /** @description The page served; null when walking by cursor */
            page?: number | null;
            per_page?: number;
            total_pages?: number;
            has_more?: boolean;
            /** @description Pass as cursor= for the next page (same sort and order); null on the last page */
            next_cursor?: string | null;
            request_id: string;
            /** Format: date-time */
            timestamp: string;
        };
    };
    responses: {
        /** @description The query or body could not be read (malformed JSON, wrong content type, bad query parameter or header) */
        BadRequest: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "VALIDATION_ERROR",
                 *         "message": "Invalid query parameters",
                 *         "details": []
                 *       },
                 *       "meta": {
                 *         "request_id": "req_1a2b3c4d5e"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description An invalid, expired or revoked credential; or: No credential, or not sent as `Authorization: Bearer <token>` */
        UnauthorizedOrCredentialsMissing: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The credential lacks the permission; or: A plan limit would be exceeded */
        ForbiddenOrLimitExceeded: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such resource in this account */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "NOT_FOUND",
                 *         "message": "Project not found",
                 *         "details": []
                 *       },
                 *       "meta": {
                 *         "request_id": "req_1a2b3c4d5e"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Duplicate slug, or a state transition that is not allowed */
        Conflict: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "CONFLICT",
                 *         "message": "A project with this slug already exists",
                 *         "details": []
                 *       },
                 *       "meta": {
                 *         "request_id": "req_1a2b3c4d5e"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body is well formed but invalid; `details` names every problem's field */
        ValidationError: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "VALIDATION_ERROR",
                 *         "message": "The request body is invalid",
                 *         "details": []
                 *       },
                 *       "meta": {
                 *         "request_id": "req_1a2b3c4d5e"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Too many requests for the plan */
        RateLimited: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "RATE_LIMITED",
                 *         "message": "Rate limit exceeded: retry after 12 s",
                 *         "details": []
                 *       },
                 *       "meta": {
                 *         "request_id": "req_1a2b3c4d5e"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description An unexpected error */
        Unexpected: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "INTERNAL_ERROR",
                 *         "message": "An unexpected error occurred; quote the request id when reporting it",
                 *         "details": []
                 *       },
                 *       "meta": {
                 *         "request_id": "req_1a2b3c4d5e"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The database is unavailable or refuses writes; retry later */
        Unavailable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "INTERNAL_ERROR",
                 *         "message": "The database is unavailable; retry later",
                 *         "details": []
                 *       },
                 *       "meta": {
                 *         "request_id": "req_1a2b3c4d5e"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Duplicate slug, or a state transition that is not allowed; or: A request with this Idempotency-Key is still at work (`Retry-After: 1`) */
        ConflictOrIdempotencyKeyInProgress: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request body is over the size limit */
        BodyTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "VALIDATION_ERROR",
                 *         "message": "The request body exceeds 5242880 bytes",
                 *         "details": []
                 *       },
                 *       "meta": {
                 *         "request_id": "req_1a2b3c4d5e"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body is well formed but invalid; `details` names every problem's field; or: The Idempotency-Key was used with another request */
        ValidationErrorOrIdempotencyKeyReused: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The credential lacks the permission */
        Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "code": "FORBIDDEN",
                 *         "message": "this credential lacks the projects:write permission needed to projects create",
                 *         "details": []
                 *       },
                 *       "meta": {
                 *         "request_id": "req_1a2b3c4d5e"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The request's id: quote it when reporting a problem */
        "X-Request-Id": string;
        /** @description Requests allowed per minute on the account's plan */
        "X-RateLimit-Limit": number;
        /** @description Requests left in the current window */
        "X-RateLimit-Remaining": number;
        /** @description Seconds since the epoch when the window resets */
        "X-RateLimit-Reset": number;
        /** @description Bearer challenge */
        "WWW-Authenticate": string;
        /** @description Seconds to wait before retrying */
        "Retry-After": number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getProjects: {
        parameters: {
            query?: {
                page?: number;
                per_page?: number;
                cursor?: string;
                status?: "active" | "archived" | "draft";
                search?: string;
                bbox?: string;
                intersects?: string;
                sort?: "name" | "created_at" | "area_hectares";
                order?: "asc" | "desc";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "proj_9f2c1a7b4e",
                     *           "name": "Redwood Creek restoration",
                     *           "slug": "redwood-creek-restoration",
                     *           "description": null,
                     *           "geometry": {
                     *             "type": "Polygon",
                     *             "coordinates": [
                     *               [
                     *                 [
                     *                   -122.5,
                     *                   37.7
                     *                 ],
                     *                 [
                     *                   -122.4,
                     *                   37.7
                     *                 ],
                     *                 [
                     *                   -122.4,
                     *                   37.8
                     *                 ],
                     *                 [
                     *                   -122.5,
                     *                   37.8
                     *                 ],
                     *                 [
                     *                   -122.5,
                     *                   37.7
                     *                 ]
                     *               ]
                     *             ]
                     *           },
                     *           "area_hectares": 9790.1234,
                     *           "bbox": [
                     *             -122.5,
                     *             37.7,
                     *             -122.4,
                     *             37.8
                     *           ],
                     *           "status": "active",
                     *           "created_at": "2026-01-05T10:00:00.000Z",
                     *           "updated_at": "2026-01-05T10:00:00.000Z"
                     *         }
                     *       ],
                     *       "meta": {
                     *         "total": 1,
                     *         "total_exact": true,
                     *         "page": 1,
                     *         "per_page": 20,
                     *         "total_pages": 1,
                     *         "has_more": false,
                     *         "next_cursor": null,
                     *         "request_id": "req_1a2b3c4d5e",
                     *         "timestamp": "2026-01-05T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Project"][];
                        meta: components["schemas"]["ListMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    postProjects: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried).
                 * @example 3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15
                 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    description?: string | null;
                    geometry?: (components["schemas"]["GeoJsonPolygon"] | components["schemas"]["GeoJsonMultiPolygon"]) | null;
                    /** @enum {string} */
                    status?: "active" | "draft";
                    slug?: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "proj_9f2c1a7b4e",
                     *         "name": "Redwood Creek restoration",
                     *         "slug": "redwood-creek-restoration",
                     *         "description": null,
                     *         "geometry": {
                     *           "type": "Polygon",
                     *           "coordinates": [
                     *             [
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ]
                     *             ]
                     *           ]
                     *         },
                     *         "area_hectares": 9790.1234,
                     *         "bbox": [
                     *           -122.5,
                     *           37.7,
                     *           -122.4,
                     *           37.8
                     *         ],
                     *         "status": "active",
                     *         "created_at": "2026-01-05T10:00:00.000Z",
                     *         "updated_at": "2026-01-05T10:00:00.000Z"
                     *       },
                     *       "meta": {
                     *         "request_id": "req_1a2b3c4d5e",
                     *         "timestamp": "2026-01-05T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Project"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ConflictOrIdempotencyKeyInProgress"];
            413: components["responses"]["BodyTooLarge"];
            422: components["responses"]["ValidationErrorOrIdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    postProjectsImport: {
        parameters: {
            query?: {
                name?: string;
                description?: string;
                slug?: string;
                status?: "active" | "archived" | "draft";
            };
            header?: {
                /**
                 * @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried).
                 * @example 3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15
                 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description The file itself (at most 5 MiB, the API's body limit), with its media type; or a `multipart/form-data` form with the file as its one file part named `file` (its file name and media type are the hints then). The content decides the format, a media type or file extension of another family than the content is a problem. Docs: docs/gis.md. */
        requestBody: {
            content: {
                "application/geo+json": string;
                "application/json": string;
                "application/vnd.google-earth.kml+xml": string;
                "application/vnd.google-earth.kmz": string;
                "application/zip": string;
                "application/geopackage+sqlite3": string;
                "multipart/form-data": {
                    /** @description The GIS file (exactly one file part) */
                    file: string;
                    /** @description `POST /v1/projects/import` only: the new project's name, when the `name` query parameter is not given (ignored by `PUT /v1/projects/{project_id}/boundary`) */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "proj_9f2c1a7b4e",
                     *         "name": "Redwood Creek restoration",
                     *         "slug": "redwood-creek-restoration",
                     *         "description": null,
                     *         "geometry": {
                     *           "type": "Polygon",
                     *           "coordinates": [
                     *             [
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ]
                     *             ]
                     *           ]
                     *         },
                     *         "area_hectares": 9790.1234,
                     *         "bbox": [
                     *           -122.5,
                     *           37.7,
                     *           -122.4,
                     *           37.8
                     *         ],
                     *         "status": "active",
                     *         "created_at": "2026-01-05T10:00:00.000Z",
                     *         "updated_at": "2026-01-05T10:00:00.000Z"
                     *       },
                     *       "meta": {
                     *         "request_id": "req_1a2b3c4d5e",
                     *         "timestamp": "2026-01-05T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Project"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ConflictOrIdempotencyKeyInProgress"];
            413: components["responses"]["BodyTooLarge"];
            422: components["responses"]["ValidationErrorOrIdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    postImports: {
        parameters: {
            query?: {
                mode?: "per_feature" | "merge";
                name_field?: string;
                description_field?: string;
                dry_run?: "true" | "false";
                name?: string;
            };
            header?: {
                /**
                 * @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried).
                 * @example 3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15
                 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description The file itself (at most 5 MiB, the API's body limit), with its media type; or a `multipart/form-data` form with the file as its one file part named `file` (its file name and media type are the hints then). The content decides the format, a media type or file extension of another family than the content is a problem. Docs: docs/gis.md. */
        requestBody: {
            content: {
                "application/geo+json": string;
                "application/json": string;
                "application/vnd.google-earth.kml+xml": string;
                "application/vnd.google-earth.kmz": string;
                "application/zip": string;
                "application/geopackage+sqlite3": string;
                "multipart/form-data": {
                    /** @description The GIS file (exactly one file part) */
                    file: string;
                    /** @description `POST /v1/projects/import` only: the new project's name, when the `name` query parameter is not given (ignored by `PUT /v1/projects/{project_id}/boundary`) */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Import"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ConflictOrIdempotencyKeyInProgress"];
            413: components["responses"]["BodyTooLarge"];
            422: components["responses"]["ValidationErrorOrIdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getImportsByImportId: {
        parameters: {
            query?: {
                results_after?: number;
                results_per_page?: number;
            };
            header?: never;
            path: {
                /** @description The import's id */
                import_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Import"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    postImportsByImportIdCancel: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried).
                 * @example 3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15
                 */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The import's id */
                import_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Import"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ConflictOrIdempotencyKeyInProgress"];
            422: components["responses"]["ValidationErrorOrIdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getProjectsExport: {
        parameters: {
            query?: {
                format?: "geojson" | "kml" | "shapefile" | "geopackage";
                cursor?: string;
                status?: "active" | "archived" | "draft";
                search?: string;
                bbox?: string;
                intersects?: string;
                sort?: "name" | "created_at" | "area_hectares";
                order?: "asc" | "desc";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, as an attachment, streamed (chunked). It holds at most 10,000 projects and 256 MiB: its end says whether it holds the whole list (GeoJSON members `truncated` and `next_cursor`; KML `Document/ExtendedData`); pass `next_cursor` as `cursor` for the rest. A response cut short (no end) is a failure, not a file. A zipped Shapefile or GeoPackage is built whole and sent with its length, from at most 64 MiB of project text: its headers `X-Canopy-Truncated` (`true` or `false`) and, when truncated, `X-Canopy-Next-Cursor` say whether it holds the whole list, and so does the file (`canopy_export.txt` in the zip, the `canopy_export` table). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    /** @description `attachment; filename="<slug or projects>.<geojson|kml|zip|gpkg>"` */
                    "Content-Disposition"?: string;
                    /** @description Projects that matched the filters (at least this many when counting stopped), known before the file is written; whether the file holds them all is said at its end (`truncated`, `next_cursor`) */
                    "X-Total-Count"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/geo+json": {
                        /** @enum {string} */
                        type: "FeatureCollection";
                        features: ({
                            /** @enum {string} */
                            type: "Feature";
                            id: string;
                            geometry: (components["schemas"]["GeoJsonPolygon"] | components["schemas"]["GeoJsonMultiPolygon"]) | null;
                            properties: {
                                id: string;
                                name: string;
                                slug: string;
                                description: string | null;
                                /** @description Geodesic area of the boundary in hectares, rounded to 4 decimals; 0 without a boundary */
                                area_hectares: number;
                                /** @enum {string} */
                                status: "active" | "archived" | "draft";
                                /** Format: date-time */
                                created_at?: string;
                                /** Format: date-time */
                                updated_at?: string;
                            } & {
                                [key: string]: unknown;
                            };
                        } & {
                            [key: string]: unknown;
                        })[];
                        /** @description Whether the export stopped at a cap before the end of the list */
                        truncated: boolean;
                        /** @description Where the rest starts (pass as `cursor`); null when complete */
                        next_cursor: string | null;
                    } & {
                        [key: string]: unknown;
                    };
                    "application/vnd.google-earth.kml+xml": string;
                    "application/zip": string;
                    "application/geopackage+sqlite3": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getProjectsByProjectId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "proj_9f2c1a7b4e",
                     *         "name": "Redwood Creek restoration",
                     *         "slug": "redwood-creek-restoration",
                     *         "description": null,
                     *         "geometry": {
                     *           "type": "Polygon",
                     *           "coordinates": [
                     *             [
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ]
                     *             ]
                     *           ]
                     *         },
                     *         "area_hectares": 9790.1234,
                     *         "bbox": [
                     *           -122.5,
                     *           37.7,
                     *           -122.4,
                     *           37.8
                     *         ],
                     *         "status": "active",
                     *         "created_at": "2026-01-05T10:00:00.000Z",
                     *         "updated_at": "2026-01-05T10:00:00.000Z"
                     *       },
                     *       "meta": {
                     *         "request_id": "req_1a2b3c4d5e",
                     *         "timestamp": "2026-01-05T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Project"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    putProjectsByProjectId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    description?: string | null;
                    geometry?: (components["schemas"]["GeoJsonPolygon"] | components["schemas"]["GeoJsonMultiPolygon"]) | null;
                    /** @enum {string} */
                    status?: "active" | "archived" | "draft";
                    slug?: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "proj_9f2c1a7b4e",
                     *         "name": "Redwood Creek restoration",
                     *         "slug": "redwood-creek-restoration",
                     *         "description": null,
                     *         "geometry": {
                     *           "type": "Polygon",
                     *           "coordinates": [
                     *             [
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ]
                     *             ]
                     *           ]
                     *         },
                     *         "area_hectares": 9790.1234,
                     *         "bbox": [
                     *           -122.5,
                     *           37.7,
                     *           -122.4,
                     *           37.8
                     *         ],
                     *         "status": "active",
                     *         "created_at": "2026-01-05T10:00:00.000Z",
                     *         "updated_at": "2026-01-05T10:00:00.000Z"
                     *       },
                     *       "meta": {
                     *         "request_id": "req_1a2b3c4d5e",
                     *         "timestamp": "2026-01-05T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Project"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["BodyTooLarge"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteProjectsByProjectId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    putProjectsByProjectIdBoundary: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
            };
            cookie?: never;
        };
        /** @description The file itself (at most 5 MiB, the API's body limit), with its media type; or a `multipart/form-data` form with the file as its one file part named `file` (its file name and media type are the hints then). The content decides the format, a media type or file extension of another family than the content is a problem. Docs: docs/gis.md. */
        requestBody: {
            content: {
                "application/geo+json": string;
                "application/json": string;
                "application/vnd.google-earth.kml+xml": string;
                "application/vnd.google-earth.kmz": string;
                "application/zip": string;
                "application/geopackage+sqlite3": string;
                "multipart/form-data": {
                    /** @description The GIS file (exactly one file part) */
                    file: string;
                    /** @description `POST /v1/projects/import` only: the new project's name, when the `name` query parameter is not given (ignored by `PUT /v1/projects/{project_id}/boundary`) */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "proj_9f2c1a7b4e",
                     *         "name": "Redwood Creek restoration",
                     *         "slug": "redwood-creek-restoration",
                     *         "description": null,
                     *         "geometry": {
                     *           "type": "Polygon",
                     *           "coordinates": [
                     *             [
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ]
                     *             ]
                     *           ]
                     *         },
                     *         "area_hectares": 9790.1234,
                     *         "bbox": [
                     *           -122.5,
                     *           37.7,
                     *           -122.4,
                     *           37.8
                     *         ],
                     *         "status": "active",
                     *         "created_at": "2026-01-05T10:00:00.000Z",
                     *         "updated_at": "2026-01-05T10:00:00.000Z"
                     *       },
                     *       "meta": {
                     *         "request_id": "req_1a2b3c4d5e",
                     *         "timestamp": "2026-01-05T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Project"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["BodyTooLarge"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getProjectsByProjectIdExport: {
        parameters: {
            query?: {
                format?: "geojson" | "kml" | "shapefile" | "geopackage";
            };
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, as an attachment */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    /** @description `attachment; filename="<slug or projects>.<geojson|kml|zip|gpkg>"` */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/geo+json": {
                        /** @enum {string} */
                        type: "FeatureCollection";
                        features: ({
                            /** @enum {string} */
                            type: "Feature";
                            id: string;
                            geometry: (components["schemas"]["GeoJsonPolygon"] | components["schemas"]["GeoJsonMultiPolygon"]) | null;
                            properties: {
                                id: string;
                                name: string;
                                slug: string;
                                description: string | null;
                                /** @description Geodesic area of the boundary in hectares, rounded to 4 decimals; 0 without a boundary */
                                area_hectares: number;
                                /** @enum {string} */
                                status: "active" | "archived" | "draft";
                                /** Format: date-time */
                                created_at?: string;
                                /** Format: date-time */
                                updated_at?: string;
                            } & {
                                [key: string]: unknown;
                            };
                        } & {
                            [key: string]: unknown;
                        })[];
                    } & {
                        [key: string]: unknown;
                    };
                    "application/vnd.google-earth.kml+xml": string;
                    "application/zip": string;
                    "application/geopackage+sqlite3": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    postProjectsByProjectIdArchive: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried).
                 * @example 3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15
                 */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The project's id */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "proj_9f2c1a7b4e",
                     *         "name": "Redwood Creek restoration",
                     *         "slug": "redwood-creek-restoration",
                     *         "description": null,
                     *         "geometry": {
                     *           "type": "Polygon",
                     *           "coordinates": [
                     *             [
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ]
                     *             ]
                     *           ]
                     *         },
                     *         "area_hectares": 9790.1234,
                     *         "bbox": [
                     *           -122.5,
                     *           37.7,
                     *           -122.4,
                     *           37.8
                     *         ],
                     *         "status": "active",
                     *         "created_at": "2026-01-05T10:00:00.000Z",
                     *         "updated_at": "2026-01-05T10:00:00.000Z"
                     *       },
                     *       "meta": {
                     *         "request_id": "req_1a2b3c4d5e",
                     *         "timestamp": "2026-01-05T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Project"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ConflictOrIdempotencyKeyInProgress"];
            422: components["responses"]["ValidationErrorOrIdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    postProjectsByProjectIdRestore: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried).
                 * @example 3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15
                 */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The project's id */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "proj_9f2c1a7b4e",
                     *         "name": "Redwood Creek restoration",
                     *         "slug": "redwood-creek-restoration",
                     *         "description": null,
                     *         "geometry": {
                     *           "type": "Polygon",
                     *           "coordinates": [
                     *             [
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ]
                     *             ]
                     *           ]
                     *         },
                     *         "area_hectares": 9790.1234,
                     *         "bbox": [
                     *           -122.5,
                     *           37.7,
                     *           -122.4,
                     *           37.8
                     *         ],
                     *         "status": "active",
                     *         "created_at": "2026-01-05T10:00:00.000Z",
                     *         "updated_at": "2026-01-05T10:00:00.000Z"
                     *       },
                     *       "meta": {
                     *         "request_id": "req_1a2b3c4d5e",
                     *         "timestamp": "2026-01-05T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Project"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ConflictOrIdempotencyKeyInProgress"];
            422: components["responses"]["ValidationErrorOrIdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getProjectsByProjectIdOverlaps: {
        parameters: {
            query?: {
                page?: number;
                per_page?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ProjectOverlap"][];
                        meta: components["schemas"]["ListMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getProjectsByProjectIdBoundaries: {
        parameters: {
            query?: {
                page?: number;
                per_page?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["BoundaryVersionSummary"][];
                        meta: components["schemas"]["ListMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getProjectsByProjectIdBoundariesByVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
                /** @description The version's id */
                version: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["BoundaryVersion"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getProjectsByProjectIdBoundariesByVersionExport: {
        parameters: {
            query?: {
                format?: "geojson" | "kml" | "shapefile" | "geopackage";
            };
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
                /** @description The version's id */
                version: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, as an attachment */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    /** @description `attachment; filename="<slug or projects>.<geojson|kml|zip|gpkg>"` */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/geo+json": {
                        /** @enum {string} */
                        type: "FeatureCollection";
                        features: ({
                            /** @enum {string} */
                            type: "Feature";
                            id: string;
                            geometry: (components["schemas"]["GeoJsonPolygon"] | components["schemas"]["GeoJsonMultiPolygon"]) | null;
                            properties: {
                                id: string;
                                name: string;
                                slug: string;
                                description: string | null;
                                /** @description Geodesic area of the boundary in hectares, rounded to 4 decimals; 0 without a boundary */
                                area_hectares: number;
                                /** @enum {string} */
                                status: "active" | "archived" | "draft";
                                /** Format: date-time */
                                created_at?: string;
                                /** Format: date-time */
                                updated_at?: string;
                            } & {
                                [key: string]: unknown;
                            };
                        } & {
                            [key: string]: unknown;
                        })[];
                    } & {
                        [key: string]: unknown;
                    };
                    "application/vnd.google-earth.kml+xml": string;
                    "application/zip": string;
                    "application/geopackage+sqlite3": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    postProjectsByProjectIdBoundariesByVersionRestore: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried).
                 * @example 3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15
                 */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The project's id */
                project_id: string;
                /** @description The version's id */
                version: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "proj_9f2c1a7b4e",
                     *         "name": "Redwood Creek restoration",
                     *         "slug": "redwood-creek-restoration",
                     *         "description": null,
                     *         "geometry": {
                     *           "type": "Polygon",
                     *           "coordinates": [
                     *             [
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.7
                     *               ],
                     *               [
                     *                 -122.4,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.8
                     *               ],
                     *               [
                     *                 -122.5,
                     *                 37.7
                     *               ]
                     *             ]
                     *           ]
                     *         },
                     *         "area_hectares": 9790.1234,
                     *         "bbox": [
                     *           -122.5,
                     *           37.7,
                     *           -122.4,
                     *           37.8
                     *         ],
                     *         "status": "active",
                     *         "created_at": "2026-01-05T10:00:00.000Z",
                     *         "updated_at": "2026-01-05T10:00:00.000Z"
                     *       },
                     *       "meta": {
                     *         "request_id": "req_1a2b3c4d5e",
                     *         "timestamp": "2026-01-05T10:00:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        data: components["schemas"]["Project"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ConflictOrIdempotencyKeyInProgress"];
            422: components["responses"]["ValidationErrorOrIdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getTilesByZByXByYMvt: {
        parameters: {
            query?: never;
            header?: {
                /** @description The `ETag` of a copy held: answered 304 without a body while it is current */
                "If-None-Match"?: string;
            };
            path: {
                /** @description The zoom, 0 to 22 */
                z: string;
                /** @description The tile's column, 0 to 2^z − 1 (from the west) */
                x: string;
                /** @description The tile's row, 0 to 2^z − 1 (from the north) */
                y: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tile (without layers when no project meets it) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    /** @description Changes with any write to a project of the tile */
                    ETag?: string;
                    /** @description `boundaries` (the `projects` layer), `points` (the `projects_points` layer) or `clusters` (the `projects_clusters` layer) */
                    "X-Tile-Mode"?: "boundaries" | "points" | "clusters";
                    [name: string]: unknown;
                };
                content: {
                    "application/vnd.mapbox-vector-tile": string;
                };
            };
            /** @description Not modified: the copy of the `If-None-Match` ETag is current */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    /** @description Changes with any write to a project of the tile */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getProjectsByProjectIdAssets: {
        parameters: {
            query?: {
                page?: number;
                per_page?: number;
                cursor?: string;
                type?: "equipment" | "monitoring_station" | "point_of_interest" | "sensor" | "other";
                status?: "active" | "inactive" | "maintenance" | "retired";
                search?: string;
            };
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Asset"][];
                        meta: components["schemas"]["ListMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    postProjectsByProjectIdAssets: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried).
                 * @example 3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15
                 */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The project's id */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    type: "equipment" | "monitoring_station" | "point_of_interest" | "sensor" | "other";
                    location?: components["schemas"]["GeoJsonPoint"] | null;
                    /** @enum {string} */
                    status?: "active" | "inactive" | "maintenance" | "retired";
                    /** @description Free-form JSON object (any keys), at most 16384 bytes as JSON */
                    metadata?: {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Asset"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ConflictOrIdempotencyKeyInProgress"];
            413: components["responses"]["BodyTooLarge"];
            422: components["responses"]["ValidationErrorOrIdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getProjectsByProjectIdAssetsByAssetId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
                /** @description The asset's id */
                asset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Asset"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    putProjectsByProjectIdAssetsByAssetId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
                /** @description The asset's id */
                asset_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @enum {string} */
                    type?: "equipment" | "monitoring_station" | "point_of_interest" | "sensor" | "other";
                    location?: components["schemas"]["GeoJsonPoint"] | null;
                    /** @enum {string} */
                    status?: "active" | "inactive" | "maintenance" | "retired";
                    /** @description Free-form JSON object (any keys), at most 16384 bytes as JSON */
                    metadata?: {
                        [key: string]: unknown;
                    };
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Asset"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["BodyTooLarge"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteProjectsByProjectIdAssetsByAssetId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The project's id */
                project_id: string;
                /** @description The asset's id */
                asset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getAccountMembers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Member"][];
                        meta: components["schemas"]["ListMeta"];
                    };
                };
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    postAccountMembersInvite: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried).
                 * @example 3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15
                 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    /** @enum {string} */
                    role: "admin" | "editor" | "viewer";
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["InvitedMember"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ConflictOrIdempotencyKeyInProgress"];
            413: components["responses"]["BodyTooLarge"];
            422: components["responses"]["ValidationErrorOrIdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    putAccountMembersByMemberId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The member's id */
                member_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    role: "owner" | "admin" | "editor" | "viewer";
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Member"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["BodyTooLarge"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteAccountMembersByMemberId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The member's id */
                member_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Account"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    putAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /**
                     * @description warn: writes succeed and report overlaps (and emit project.overlap_detected); reject: a write whose boundary overlaps another active or draft project is refused with 409 CONFLICT
                     * @enum {string}
                     */
                    overlap_policy?: "warn" | "reject";
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Account"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["BodyTooLarge"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getAccountUsage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["UsageStatistics"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"][];
                        meta: components["schemas"]["ListMeta"];
                    };
                };
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    postWebhooks: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried).
                 * @example 3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15
                 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url: string;
                    events: ("project.created" | "project.updated" | "project.deleted" | "project.archived" | "project.restored" | "asset.created" | "asset.updated" | "asset.deleted" | "asset.status_changed" | "member.invited" | "member.joined" | "member.updated" | "member.removed" | "subscription.created" | "subscription.updated" | "subscription.canceled" | "invoice.paid" | "invoice.failed" | "usage.threshold_reached" | "usage.limit_exceeded" | "project.overlap_detected" | "import.completed" | "*")[];
                    secret?: string;
                    description?: string | null;
                    enabled?: boolean;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ConflictOrIdempotencyKeyInProgress"];
            413: components["responses"]["BodyTooLarge"];
            422: components["responses"]["ValidationErrorOrIdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getWebhooksByWebhookId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    putWebhooksByWebhookId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url?: string;
                    events?: ("project.created" | "project.updated" | "project.deleted" | "project.archived" | "project.restored" | "asset.created" | "asset.updated" | "asset.deleted" | "asset.status_changed" | "member.invited" | "member.joined" | "member.updated" | "member.removed" | "subscription.created" | "subscription.updated" | "subscription.canceled" | "invoice.paid" | "invoice.failed" | "usage.threshold_reached" | "usage.limit_exceeded" | "project.overlap_detected" | "import.completed" | "*")[];
                    description?: string | null;
                    enabled?: boolean;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["BodyTooLarge"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteWebhooksByWebhookId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getWebhooksByWebhookIdLogs: {
        parameters: {
            query?: {
                page?: number;
                per_page?: number;
                cursor?: string;
                status?: "success" | "failed" | "pending" | "canceled";
                event_type?: string;
            };
            header?: never;
            path: {
                /** @description The webhook's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["DeliveryLog"][];
                        meta: components["schemas"]["ListMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    postWebhooksByWebhookIdTest: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried).
                 * @example 3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15
                 */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The webhook's id */
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["DeliveryLog"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ConflictOrIdempotencyKeyInProgress"];
            422: components["responses"]["ValidationErrorOrIdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    postWebhooksByWebhookIdLogsByLogIdRedeliver: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried).
                 * @example 3f1c2e9a-5b7d-4e08-9a61-2c4b8d0f7e15
                 */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The webhook's id */
                webhook_id: string;
                /** @description The log's id */
                log_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["DeliveryLog"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ConflictOrIdempotencyKeyInProgress"];
            422: components["responses"]["ValidationErrorOrIdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getEvents: {
        parameters: {
            query?: {
                page?: number;
                per_page?: number;
                cursor?: string;
                type?: string;
                created_after?: string;
                created_before?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Event"][];
                        meta: components["schemas"]["ListMeta"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getAuthVerify: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Verification"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-RateLimit-Limit": components["headers"]["X-RateLimit-Limit"];
                    "X-RateLimit-Remaining": components["headers"]["X-RateLimit-Remaining"];
                    "X-RateLimit-Reset": components["headers"]["X-RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Me"];
                        meta: components["schemas"]["ResponseMeta"];
                    };
                };
            };
            401: components["responses"]["UnauthorizedOrCredentialsMissing"];
            403: components["responses"]["ForbiddenOrLimitExceeded"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationError"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Unexpected"];
            503: components["responses"]["Unavailable"];
        };
    };
    webhookProjectCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "project.created",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "proj_cpn7g1n76j40zpy591rjehchc7",
                 *         "name": "Redwood Creek restoration",
                 *         "slug": "redwood-creek-restoration",
                 *         "description": "Riparian replanting along the lower creek",
                 *         "area_hectares": 97.8753,
                 *         "status": "active",
                 *         "created_at": "2026-01-05T01:00:00.000Z",
                 *         "created_by": {
                 *           "id": "user_ada0sx82jar9qhk1qvqfafr1bw",
                 *           "email": "maya@redwood.example"
                 *         }
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "project.created";
                    data?: components["schemas"]["ProjectCreatedEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookProjectUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "project.updated",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "proj_cpn7g1n76j40zpy591rjehchc7",
                 *         "name": "Redwood Creek restoration",
                 *         "slug": "redwood-creek-restoration",
                 *         "description": "Riparian replanting along the lower creek",
                 *         "geometry": {
                 *           "type": "Polygon",
                 *           "coordinates": [
                 *             [
                 *               [
                 *                 -122.5,
                 *                 37.7
                 *               ],
                 *               [
                 *                 -122.49,
                 *                 37.7
                 *               ],
                 *               [
                 *                 -122.49,
                 *                 37.71
                 *               ],
                 *               [
                 *                 -122.5,
                 *                 37.71
                 *               ],
                 *               [
                 *                 -122.5,
                 *                 37.7
                 *               ]
                 *             ]
                 *           ]
                 *         },
                 *         "area_hectares": 97.8753,
                 *         "bbox": [
                 *           -122.5,
                 *           37.7,
                 *           -122.49,
                 *           37.71
                 *         ],
                 *         "status": "active",
                 *         "created_at": "2026-01-05T01:00:00.000Z",
                 *         "updated_at": "2026-01-05T03:00:00.000Z"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "project.updated";
                    data?: components["schemas"]["Project"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookProjectDeleted: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "project.deleted",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "proj_cpn7g1n76j40zpy591rjehchc7",
                 *         "name": "Redwood Creek restoration",
                 *         "slug": "redwood-creek-restoration",
                 *         "description": "Riparian replanting along the lower creek",
                 *         "geometry": {
                 *           "type": "Polygon",
                 *           "coordinates": [
                 *             [
                 *               [
                 *                 -122.5,
                 *                 37.7
                 *               ],
                 *               [
                 *                 -122.49,
                 *                 37.7
                 *               ],
                 *               [
                 *                 -122.49,
                 *                 37.71
                 *               ],
                 *               [
                 *                 -122.5,
                 *                 37.71
                 *               ],
                 *               [
                 *                 -122.5,
                 *                 37.7
                 *               ]
                 *             ]
                 *           ]
                 *         },
                 *         "area_hectares": 97.8753,
                 *         "bbox": [
                 *           -122.5,
                 *           37.7,
                 *           -122.49,
                 *           37.71
                 *         ],
                 *         "status": "archived",
                 *         "created_at": "2026-01-05T01:00:00.000Z",
                 *         "updated_at": "2026-01-05T03:00:00.000Z"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "project.deleted";
                    data?: components["schemas"]["Project"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookProjectArchived: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "project.archived",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "proj_cpn7g1n76j40zpy591rjehchc7",
                 *         "name": "Redwood Creek restoration",
                 *         "slug": "redwood-creek-restoration",
                 *         "description": "Riparian replanting along the lower creek",
                 *         "geometry": {
                 *           "type": "Polygon",
                 *           "coordinates": [
                 *             [
                 *               [
                 *                 -122.5,
                 *                 37.7
                 *               ],
                 *               [
                 *                 -122.49,
                 *                 37.7
                 *               ],
                 *               [
                 *                 -122.49,
                 *                 37.71
                 *               ],
                 *               [
                 *                 -122.5,
                 *                 37.71
                 *               ],
                 *               [
                 *                 -122.5,
                 *                 37.7
                 *               ]
                 *             ]
                 *           ]
                 *         },
                 *         "area_hectares": 97.8753,
                 *         "bbox": [
                 *           -122.5,
                 *           37.7,
                 *           -122.49,
                 *           37.71
                 *         ],
                 *         "status": "archived",
                 *         "created_at": "2026-01-05T01:00:00.000Z",
                 *         "updated_at": "2026-01-05T03:00:00.000Z"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "project.archived";
                    data?: components["schemas"]["Project"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookProjectRestored: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "project.restored",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "proj_cpn7g1n76j40zpy591rjehchc7",
                 *         "name": "Redwood Creek restoration",
                 *         "slug": "redwood-creek-restoration",
                 *         "description": "Riparian replanting along the lower creek",
                 *         "geometry": {
                 *           "type": "Polygon",
                 *           "coordinates": [
                 *             [
                 *               [
                 *                 -122.5,
                 *                 37.7
                 *               ],
                 *               [
                 *                 -122.49,
                 *                 37.7
                 *               ],
                 *               [
                 *                 -122.49,
                 *                 37.71
                 *               ],
                 *               [
                 *                 -122.5,
                 *                 37.71
                 *               ],
                 *               [
                 *                 -122.5,
                 *                 37.7
                 *               ]
                 *             ]
                 *           ]
                 *         },
                 *         "area_hectares": 97.8753,
                 *         "bbox": [
                 *           -122.5,
                 *           37.7,
                 *           -122.49,
                 *           37.71
                 *         ],
                 *         "status": "active",
                 *         "created_at": "2026-01-05T01:00:00.000Z",
                 *         "updated_at": "2026-01-05T03:00:00.000Z"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "project.restored";
                    data?: components["schemas"]["Project"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookAssetCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "asset.created",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "asset_c6we7fv2yqf4kw702f0h078t0p",
                 *         "project_id": "proj_cpn7g1n76j40zpy591rjehchc7",
                 *         "name": "Weather station 3",
                 *         "type": "monitoring_station",
                 *         "location": {
                 *           "type": "Point",
                 *           "coordinates": [
                 *             -122.495,
                 *             37.705
                 *           ]
                 *         },
                 *         "status": "active",
                 *         "created_at": "2026-01-05T02:00:00.000Z"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "asset.created";
                    data?: components["schemas"]["AssetCreatedEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookAssetUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "asset.updated",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "asset_c6we7fv2yqf4kw702f0h078t0p",
                 *         "project_id": "proj_cpn7g1n76j40zpy591rjehchc7",
                 *         "name": "Weather station 3",
                 *         "type": "monitoring_station",
                 *         "location": {
                 *           "type": "Point",
                 *           "coordinates": [
                 *             -122.495,
                 *             37.705
                 *           ]
                 *         },
                 *         "status": "maintenance",
                 *         "metadata": {
                 *           "serial": "WS-2291"
                 *         },
                 *         "created_at": "2026-01-05T02:00:00.000Z",
                 *         "updated_at": "2026-01-05T03:00:00.000Z"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "asset.updated";
                    data?: components["schemas"]["Asset"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookAssetDeleted: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "asset.deleted",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "asset_c6we7fv2yqf4kw702f0h078t0p",
                 *         "project_id": "proj_cpn7g1n76j40zpy591rjehchc7",
                 *         "name": "Weather station 3",
                 *         "type": "monitoring_station",
                 *         "location": {
                 *           "type": "Point",
                 *           "coordinates": [
                 *             -122.495,
                 *             37.705
                 *           ]
                 *         },
                 *         "status": "maintenance",
                 *         "metadata": {
                 *           "serial": "WS-2291"
                 *         },
                 *         "created_at": "2026-01-05T02:00:00.000Z",
                 *         "updated_at": "2026-01-05T03:00:00.000Z"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "asset.deleted";
                    data?: components["schemas"]["Asset"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookAssetStatusChanged: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "asset.status_changed",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "asset_c6we7fv2yqf4kw702f0h078t0p",
                 *         "project_id": "proj_cpn7g1n76j40zpy591rjehchc7",
                 *         "name": "Weather station 3",
                 *         "type": "monitoring_station",
                 *         "location": {
                 *           "type": "Point",
                 *           "coordinates": [
                 *             -122.495,
                 *             37.705
                 *           ]
                 *         },
                 *         "status": "maintenance",
                 *         "created_at": "2026-01-05T02:00:00.000Z",
                 *         "previous_status": "active"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "asset.status_changed";
                    data?: components["schemas"]["AssetStatusChangedEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookMemberInvited: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "member.invited",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "user_gnx8ec3qsjjwwvawzk281pqeh7",
                 *         "email": "ivy@redwood.example",
                 *         "name": null,
                 *         "role": "editor",
                 *         "permissions": [
                 *           "projects:read",
                 *           "projects:write",
                 *           "assets:read",
                 *           "assets:write",
                 *           "members:read"
                 *         ],
                 *         "status": "invited",
                 *         "joined_at": null,
                 *         "last_active_at": null
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "member.invited";
                    data?: components["schemas"]["Member"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookMemberJoined: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "member.joined",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "user_gnx8ec3qsjjwwvawzk281pqeh7",
                 *         "email": "ivy@redwood.example",
                 *         "name": "Ivy Chen",
                 *         "role": "editor",
                 *         "joined_at": "2026-01-05T02:00:00.000Z"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "member.joined";
                    data?: components["schemas"]["MemberJoinedEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookMemberUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "member.updated",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "user_gnx8ec3qsjjwwvawzk281pqeh7",
                 *         "email": "ivy@redwood.example",
                 *         "name": "Ivy Chen",
                 *         "role": "admin",
                 *         "permissions": [
                 *           "projects:read",
                 *           "projects:write",
                 *           "assets:read",
                 *           "assets:write",
                 *           "members:read",
                 *           "members:write",
                 *           "billing:read"
                 *         ],
                 *         "status": "active",
                 *         "joined_at": "2026-01-05T02:00:00.000Z",
                 *         "last_active_at": "2026-01-05T03:00:00.000Z",
                 *         "previous_role": "editor"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "member.updated";
                    data?: components["schemas"]["MemberUpdatedEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookMemberRemoved: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "member.removed",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "user_gnx8ec3qsjjwwvawzk281pqeh7",
                 *         "email": "ivy@redwood.example",
                 *         "name": "Ivy Chen",
                 *         "role": "admin",
                 *         "permissions": [
                 *           "projects:read",
                 *           "projects:write",
                 *           "assets:read",
                 *           "assets:write",
                 *           "members:read",
                 *           "members:write",
                 *           "billing:read"
                 *         ],
                 *         "status": "active",
                 *         "joined_at": "2026-01-05T02:00:00.000Z",
                 *         "last_active_at": "2026-01-05T03:00:00.000Z"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "member.removed";
                    data?: components["schemas"]["Member"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookSubscriptionCreated: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "subscription.created",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "plan": "pro",
                 *         "external_id": "sub_2026_0042"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "subscription.created";
                    data?: components["schemas"]["BillingEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookSubscriptionUpdated: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "subscription.updated",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "account_id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "plan": "pro",
                 *         "previous_plan": "free"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "subscription.updated";
                    data?: components["schemas"]["SubscriptionUpdatedEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookSubscriptionCanceled: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "subscription.canceled",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "plan": "pro",
                 *         "external_id": "sub_2026_0042"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "subscription.canceled";
                    data?: components["schemas"]["BillingEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookInvoicePaid: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "invoice.paid",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "amount": 4900,
                 *         "currency": "eur",
                 *         "invoice_number": "2026-0107"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "invoice.paid";
                    data?: components["schemas"]["BillingEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookInvoiceFailed: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "invoice.failed",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "amount": 4900,
                 *         "currency": "eur",
                 *         "invoice_number": "2026-0107"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "invoice.failed";
                    data?: components["schemas"]["BillingEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookUsageThresholdReached: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "usage.threshold_reached",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "metric": "hectares",
                 *         "threshold": 90,
                 *         "current": 912.4821,
                 *         "limit": 1000,
                 *         "period": {
                 *           "start": "2026-01-01T00:00:00.000Z",
                 *           "end": "2026-02-01T00:00:00.000Z"
                 *         }
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "usage.threshold_reached";
                    data?: components["schemas"]["UsageThresholdReachedEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookUsageLimitExceeded: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "usage.limit_exceeded",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "metric": "members",
                 *         "current": 3,
                 *         "requested": 4,
                 *         "limit": 3
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "usage.limit_exceeded";
                    data?: components["schemas"]["UsageLimitExceededEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookProjectOverlapDetected: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "project.overlap_detected",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "project": {
                 *           "id": "proj_cpn7g1n76j40zpy591rjehchc7",
                 *           "name": "Redwood Creek restoration",
                 *           "slug": "redwood-creek-restoration",
                 *           "area_hectares": 97.8753,
                 *           "status": "active"
                 *         },
                 *         "overlaps": [
                 *           {
                 *             "project_id": "proj_gpzgr5j2m31px2xs6t4hrzzk28",
                 *             "name": "Upper Redwood Creek",
                 *             "overlap_hectares": 24.4689
                 *           }
                 *         ],
                 *         "complete": true
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "project.overlap_detected";
                    data?: components["schemas"]["ProjectOverlapDetectedEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookImportCompleted: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "import.completed",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "id": "imp_7m2k9q4xw1c8n5r3t6v0b2d4fh",
                 *         "status": "completed",
                 *         "mode": "per_feature",
                 *         "file": {
                 *           "name": "stands-2026.zip",
                 *           "format": "shapefile",
                 *           "source_crs": "ETRS89 / UTM zone 32N"
                 *         },
                 *         "features": 412,
                 *         "created": 409,
                 *         "refused": 3,
                 *         "hectares": 2315.0417,
                 *         "error": null,
                 *         "completed_at": "2026-01-05T04:00:00.000Z"
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "import.completed";
                    data?: components["schemas"]["ImportCompletedEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhookWebhookTest: {
        parameters: {
            query?: never;
            header: {
                /** @description sha256=<hex HMAC-SHA256 of the raw body keyed by the webhook secret> */
                "X-Service-Signature": string;
                /** @description The event's id (stable across retries) */
                "X-Service-Event-Id": string;
                /** @description The event's type */
                "X-Service-Event-Type": string;
                /** @description Standard Webhooks: the event's id */
                "webhook-id": string;
                /** @description Standard Webhooks: seconds since the epoch when sent */
                "webhook-timestamp": string;
                /** @description Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "evt_s229rws6d8r1ef7w2kxqaqtfwj",
                 *       "type": "webhook.test",
                 *       "created_at": "2026-01-05T03:00:00.000Z",
                 *       "data": {
                 *         "webhook_id": "wh_jb9k69k2fj86ycgq4zftg8f7ex",
                 *         "message": "This is a test event from Canopy."
                 *       },
                 *       "account": {
                 *         "id": "acc_cnyzgxahr83pt8h0fdr7mjgxtx",
                 *         "name": "Redwood Trust"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Event"] & {
                    /** @constant */
                    type?: "webhook.test";
                    data?: components["schemas"]["WebhookTestEventData"];
                };
            };
        };
        responses: {
            /** @description Received (any 2xx); anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
