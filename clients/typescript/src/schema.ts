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
         */
        get: operations["getProjects"];
        put?: never;
        /**
         * Create a project
         * @description Requires the `projects:write` permission.
         */
        post: operations["postProjects"];
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
         * Rename the account
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
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: {
        /** @description Error */
        Error: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": {
                    error: {
                        code: string;
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
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getProjects: {
        parameters: {
            query?: {
                page?: number | ("Infinity" | "-Infinity" | "NaN") | string;
                per_page?: number | ("Infinity" | "-Infinity" | "NaN") | string;
                cursor?: string;
                status?: "active" | "archived" | "draft";
                search?: string;
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: ({
                            id: string;
                            name: string;
                            slug: string;
                            description: string | null;
                            geometry: unknown | null;
                            area_hectares: number | ("Infinity" | "-Infinity" | "NaN");
                            bbox: [
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN")
                            ] | null;
                            /** @enum {string} */
                            status: "active" | "archived" | "draft";
                            created_at: string;
                            updated_at: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                        meta: {
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
                            request_id?: string;
                            timestamp?: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    postProjects: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried). */
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
                    geometry?: unknown | null;
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            slug: string;
                            description: string | null;
                            geometry: unknown | null;
                            area_hectares: number | ("Infinity" | "-Infinity" | "NaN");
                            bbox: [
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN")
                            ] | null;
                            /** @enum {string} */
                            status: "active" | "archived" | "draft";
                            created_at: string;
                            updated_at: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    getProjectsByProjectId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            slug: string;
                            description: string | null;
                            geometry: unknown | null;
                            area_hectares: number | ("Infinity" | "-Infinity" | "NaN");
                            bbox: [
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN")
                            ] | null;
                            /** @enum {string} */
                            status: "active" | "archived" | "draft";
                            created_at: string;
                            updated_at: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    putProjectsByProjectId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    description?: string | null;
                    geometry?: unknown | null;
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            slug: string;
                            description: string | null;
                            geometry: unknown | null;
                            area_hectares: number | ("Infinity" | "-Infinity" | "NaN");
                            bbox: [
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN")
                            ] | null;
                            /** @enum {string} */
                            status: "active" | "archived" | "draft";
                            created_at: string;
                            updated_at: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    deleteProjectsByProjectId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    postProjectsByProjectIdArchive: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried). */
                "Idempotency-Key"?: string;
            };
            path: {
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            slug: string;
                            description: string | null;
                            geometry: unknown | null;
                            area_hectares: number | ("Infinity" | "-Infinity" | "NaN");
                            bbox: [
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN")
                            ] | null;
                            /** @enum {string} */
                            status: "active" | "archived" | "draft";
                            created_at: string;
                            updated_at: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    postProjectsByProjectIdRestore: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried). */
                "Idempotency-Key"?: string;
            };
            path: {
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            slug: string;
                            description: string | null;
                            geometry: unknown | null;
                            area_hectares: number | ("Infinity" | "-Infinity" | "NaN");
                            bbox: [
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN"),
                                number | ("Infinity" | "-Infinity" | "NaN")
                            ] | null;
                            /** @enum {string} */
                            status: "active" | "archived" | "draft";
                            created_at: string;
                            updated_at: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    getProjectsByProjectIdAssets: {
        parameters: {
            query?: {
                page?: number | ("Infinity" | "-Infinity" | "NaN") | string;
                per_page?: number | ("Infinity" | "-Infinity" | "NaN") | string;
                cursor?: string;
                type?: "equipment" | "monitoring_station" | "point_of_interest" | "sensor" | "other";
                status?: "active" | "inactive" | "maintenance" | "retired";
                search?: string;
            };
            header?: never;
            path: {
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: ({
                            id: string;
                            project_id: string;
                            name: string;
                            /** @enum {string} */
                            type: "equipment" | "monitoring_station" | "point_of_interest" | "sensor" | "other";
                            location: unknown | null;
                            /** @enum {string} */
                            status: "active" | "inactive" | "maintenance" | "retired";
                            metadata: Record<string, unknown>;
                            created_at: string;
                            updated_at: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                        meta: {
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
                            request_id?: string;
                            timestamp?: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    postProjectsByProjectIdAssets: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried). */
                "Idempotency-Key"?: string;
            };
            path: {
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
                    location?: unknown | null;
                    /** @enum {string} */
                    status?: "active" | "inactive" | "maintenance" | "retired";
                    metadata?: Record<string, unknown>;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            project_id: string;
                            name: string;
                            /** @enum {string} */
                            type: "equipment" | "monitoring_station" | "point_of_interest" | "sensor" | "other";
                            location: unknown | null;
                            /** @enum {string} */
                            status: "active" | "inactive" | "maintenance" | "retired";
                            metadata: Record<string, unknown>;
                            created_at: string;
                            updated_at: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    getProjectsByProjectIdAssetsByAssetId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: string;
                asset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            project_id: string;
                            name: string;
                            /** @enum {string} */
                            type: "equipment" | "monitoring_station" | "point_of_interest" | "sensor" | "other";
                            location: unknown | null;
                            /** @enum {string} */
                            status: "active" | "inactive" | "maintenance" | "retired";
                            metadata: Record<string, unknown>;
                            created_at: string;
                            updated_at: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    putProjectsByProjectIdAssetsByAssetId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: string;
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
                    location?: unknown | null;
                    /** @enum {string} */
                    status?: "active" | "inactive" | "maintenance" | "retired";
                    metadata?: Record<string, unknown>;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            project_id: string;
                            name: string;
                            /** @enum {string} */
                            type: "equipment" | "monitoring_station" | "point_of_interest" | "sensor" | "other";
                            location: unknown | null;
                            /** @enum {string} */
                            status: "active" | "inactive" | "maintenance" | "retired";
                            metadata: Record<string, unknown>;
                            created_at: string;
                            updated_at: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    deleteProjectsByProjectIdAssetsByAssetId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                project_id: string;
                asset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: ({
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
                        })[];
                        meta: {
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
                            request_id?: string;
                            timestamp?: string;
                        };
                    };
                };
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    postAccountMembersInvite: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried). */
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
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
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    putAccountMembersByMemberId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
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
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    deleteAccountMembersByMemberId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                member_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            slug: string;
                            /** @enum {string} */
                            type: "team";
                            /** @enum {string} */
                            plan: "free" | "pro" | "enterprise";
                            usage: {
                                hectares: number | ("Infinity" | "-Infinity" | "NaN");
                                projects: number | ("Infinity" | "-Infinity" | "NaN");
                                members: number | ("Infinity" | "-Infinity" | "NaN");
                            } & {
                                [key: string]: unknown;
                            };
                            created_at: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
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
                    name: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            slug: string;
                            /** @enum {string} */
                            type: "team";
                            /** @enum {string} */
                            plan: "free" | "pro" | "enterprise";
                            usage: {
                                hectares: number | ("Infinity" | "-Infinity" | "NaN");
                                projects: number | ("Infinity" | "-Infinity" | "NaN");
                                members: number | ("Infinity" | "-Infinity" | "NaN");
                            } & {
                                [key: string]: unknown;
                            };
                            created_at: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            period: {
                                start: string;
                                end: string;
                            } & {
                                [key: string]: unknown;
                            };
                            hectares: {
                                current: number | ("Infinity" | "-Infinity" | "NaN");
                                limit: number | ("Infinity" | "-Infinity" | "NaN");
                                percentage: number | ("Infinity" | "-Infinity" | "NaN");
                            } & {
                                [key: string]: unknown;
                            };
                            projects: {
                                active: number | ("Infinity" | "-Infinity" | "NaN");
                                archived: number | ("Infinity" | "-Infinity" | "NaN");
                                total: number | ("Infinity" | "-Infinity" | "NaN");
                            } & {
                                [key: string]: unknown;
                            };
                            members: {
                                current: number | ("Infinity" | "-Infinity" | "NaN");
                                limit: number | ("Infinity" | "-Infinity" | "NaN");
                            } & {
                                [key: string]: unknown;
                            };
                            api_requests: {
                                current: number | ("Infinity" | "-Infinity" | "NaN");
                                limit: number | ("Infinity" | "-Infinity" | "NaN");
                            } & {
                                [key: string]: unknown;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: ({
                            id: string;
                            url: string;
                            events: string[];
                            description: string | null;
                            enabled: boolean;
                            disabled_reason: string | null;
                            disabled_at: string | null;
                            created_at: string;
                            updated_at: string;
                            secret?: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                        meta: {
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
                            request_id?: string;
                            timestamp?: string;
                        };
                    };
                };
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    postWebhooks: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried). */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url: string;
                    events: ("project.created" | "project.updated" | "project.deleted" | "project.archived" | "project.restored" | "asset.created" | "asset.updated" | "asset.deleted" | "asset.status_changed" | "member.invited" | "member.joined" | "member.updated" | "member.removed" | "subscription.created" | "subscription.updated" | "subscription.canceled" | "invoice.paid" | "invoice.failed" | "usage.threshold_reached" | "usage.limit_exceeded" | "*")[];
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            url: string;
                            events: string[];
                            description: string | null;
                            enabled: boolean;
                            disabled_reason: string | null;
                            disabled_at: string | null;
                            created_at: string;
                            updated_at: string;
                            secret?: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    getWebhooksByWebhookId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            url: string;
                            events: string[];
                            description: string | null;
                            enabled: boolean;
                            disabled_reason: string | null;
                            disabled_at: string | null;
                            created_at: string;
                            updated_at: string;
                            secret?: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    putWebhooksByWebhookId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url?: string;
                    events?: ("project.created" | "project.updated" | "project.deleted" | "project.archived" | "project.restored" | "asset.created" | "asset.updated" | "asset.deleted" | "asset.status_changed" | "member.invited" | "member.joined" | "member.updated" | "member.removed" | "subscription.created" | "subscription.updated" | "subscription.canceled" | "invoice.paid" | "invoice.failed" | "usage.threshold_reached" | "usage.limit_exceeded" | "*")[];
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            url: string;
                            events: string[];
                            description: string | null;
                            enabled: boolean;
                            disabled_reason: string | null;
                            disabled_at: string | null;
                            created_at: string;
                            updated_at: string;
                            secret?: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    deleteWebhooksByWebhookId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    getWebhooksByWebhookIdLogs: {
        parameters: {
            query?: {
                page?: number | ("Infinity" | "-Infinity" | "NaN") | string;
                per_page?: number | ("Infinity" | "-Infinity" | "NaN") | string;
                cursor?: string;
                status?: "success" | "failed" | "pending" | "canceled";
                event_type?: string;
            };
            header?: never;
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: ({
                            id: string;
                            event_id: string;
                            event_type: string;
                            /** @enum {string} */
                            status: "success" | "failed" | "pending" | "canceled";
                            attempt: number | ("Infinity" | "-Infinity" | "NaN");
                            response_code: number | ("Infinity" | "-Infinity" | "NaN") | null;
                            response_time_ms: number | ("Infinity" | "-Infinity" | "NaN") | null;
                            error: string | null;
                            error_class: string | null;
                            delivered_at: string | null;
                            next_retry_at: string | null;
                        } & {
                            [key: string]: unknown;
                        })[];
                        meta: {
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
                            request_id?: string;
                            timestamp?: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    postWebhooksByWebhookIdTest: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried). */
                "Idempotency-Key"?: string;
            };
            path: {
                webhook_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            event_id: string;
                            event_type: string;
                            /** @enum {string} */
                            status: "success" | "failed" | "pending" | "canceled";
                            attempt: number | ("Infinity" | "-Infinity" | "NaN");
                            response_code: number | ("Infinity" | "-Infinity" | "NaN") | null;
                            response_time_ms: number | ("Infinity" | "-Infinity" | "NaN") | null;
                            error: string | null;
                            error_class: string | null;
                            delivered_at: string | null;
                            next_retry_at: string | null;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    postWebhooksByWebhookIdLogsByLogIdRedeliver: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry: for 24 hours, a request with the same key (per account), method, path and body gets the first response again (status, body and headers, with `Idempotent-Replayed: true`) without the work being redone. The same key with another method, path or body is refused with 422 VALIDATION_ERROR; while the first request with a key is still at work, others get 409 CONFLICT with Retry-After. Responses with status 5xx or 429 are not kept (the key may be retried). */
                "Idempotency-Key"?: string;
            };
            path: {
                webhook_id: string;
                log_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            event_id: string;
                            event_type: string;
                            /** @enum {string} */
                            status: "success" | "failed" | "pending" | "canceled";
                            attempt: number | ("Infinity" | "-Infinity" | "NaN");
                            response_code: number | ("Infinity" | "-Infinity" | "NaN") | null;
                            response_time_ms: number | ("Infinity" | "-Infinity" | "NaN") | null;
                            error: string | null;
                            error_class: string | null;
                            delivered_at: string | null;
                            next_retry_at: string | null;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            409: components["responses"]["Error"];
            422: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
    getEvents: {
        parameters: {
            query?: {
                page?: number | ("Infinity" | "-Infinity" | "NaN") | string;
                per_page?: number | ("Infinity" | "-Infinity" | "NaN") | string;
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: unknown[];
                        meta: {
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
                            request_id?: string;
                            timestamp?: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error"];
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            valid: boolean;
                            /** @enum {string} */
                            type: "api_key" | "service_token" | "oauth";
                            permissions: string[];
                            account_id: string;
                            expires_at: string | null;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
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
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string | null;
                            email: string;
                            /** @enum {string} */
                            role: "owner" | "admin" | "editor" | "viewer";
                            account_id: string;
                        } & {
                            [key: string]: unknown;
                        };
                        meta: {
                            request_id: string;
                            /** Format: date-time */
                            timestamp: string;
                        };
                    };
                };
            };
            401: components["responses"]["Error"];
            403: components["responses"]["Error"];
            404: components["responses"]["Error"];
            429: components["responses"]["Error"];
            500: components["responses"]["Error"];
        };
    };
}
