// Discovery documents: RFC 8414 authorization-server metadata and RFC 9728 protected-resource metadata — advertising exactly what is implemented.
import type { Config } from "../config/load.ts";
import { scopesOfLevel } from "../messaging/level.ts";
import { SCOPE } from "./constants.ts";

/** `hermes`, plus the messaging scopes while HERMES_MCP_MESSAGING offers them (advertising exactly what is granted). */
const supportedScopes = (config: Config): string[] => [SCOPE, ...scopesOfLevel(config.messaging.mode)];

const AUTH_METHODS = ["client_secret_post", "client_secret_basic", "none"];

/** RFC 8414 §2; `issuer` byte-identical to OAUTH_ISSUER_URL (§3.3: clients compare it exactly). */
export function authorizationServerMetadata(config: Config, dynamicClients: boolean): Record<string, unknown> {
  const issuer = config.issuerUrl;
  const metadata: Record<string, unknown> = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    revocation_endpoint: `${issuer}/revoke`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    scopes_supported: supportedScopes(config),
    authorization_response_iss_parameter_supported: true,
  };
  // Advertised only while they work: a consent password is set and OAUTH_DYNAMIC_CLIENTS is not false.
  if (dynamicClients) {
    metadata.registration_endpoint = `${issuer}/register`;
    metadata.client_id_metadata_document_supported = true;
  }
  return metadata;
}

/** RFC 9728 §2: the MCP endpoint as the resource, this server as its authorization server, tokens in the header only. */
export function protectedResourceMetadata(config: Config): Record<string, unknown> {
  return {
    resource: config.resourceUrl,
    authorization_servers: [config.issuerUrl],
    scopes_supported: supportedScopes(config),
    bearer_methods_supported: ["header"],
    resource_name: "Hermes Agent (hermes-mcp)",
  };
}
