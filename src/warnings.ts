/**
 * Imported first by every entry point. The AWS SDK prints a release-policy notice about
 * Node 22 on every start; it is not a fault, so use the SDK's own switch to silence it.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
export {};
