import { create, fromBinary, toBinary, type DescMessage, type DescMethod, type DescService, type MessageInitShape } from '@bufbuild/protobuf';
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';

/** The HTTP/2 path grpc-js uses for a method: `/<package>.<Service>/<Method>`. */
export function methodPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/**
 * Builds the grpc-js definition of one method from its protobuf-es descriptor. The serializers
 * accept a message, a plain init object (completed with `create`, so defaults apply), or a
 * `Uint8Array` that is already the encoded message (the server encodes responses itself so that
 * an encoding failure is reported like any other handler error).
 */
export function createMethodDefinition(method: DescMethod): MethodDefinition<unknown, unknown> {
  return {
    path: methodPath(method),
    originalName: method.name,
    requestStream: method.methodKind === 'client_streaming' || method.methodKind === 'bidi_streaming',
    responseStream: method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming',
    requestSerialize: serializer(method.input),
    requestDeserialize: deserializer(method.input),
    responseSerialize: serializer(method.output),
    responseDeserialize: deserializer(method.output),
  };
}

/**
 * Builds the grpc-js ServiceDefinition of `service`, keyed by each method's localName
 * (`getUser`), for `methods` (default: all methods of the service).
 */
export function createServiceDefinition(service: DescService, methods: readonly DescMethod[] = service.methods): ServiceDefinition {
  const definition: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const method of methods) definition[method.localName] = createMethodDefinition(method);
  return definition;
}

/** Encodes `value` (message or init object) as the binary form of `schema`. */
export function encodeMessage(schema: DescMessage, value: unknown): Uint8Array {
  return toBinary(schema, create(schema, value as MessageInitShape<DescMessage>));
}

function serializer(schema: DescMessage): (value: unknown) => Buffer {
  return (value) => {
    const bytes = value instanceof Uint8Array ? value : encodeMessage(schema, value);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

function deserializer(schema: DescMessage): (bytes: Buffer) => unknown {
  return (bytes) => fromBinary(schema, bytes);
}

/** The localNames of the unary methods of S (`getUser`, ...); streaming methods are left out. */
export type UnaryMethodName<S extends DescService> = {
  [K in keyof S['method']]: S['method'][K]['methodKind'] extends 'unary' ? K : never;
}[keyof S['method']];

/** The unary methods of `service`. */
export function unaryMethods(service: DescService): DescMethod[] {
  return service.methods.filter((method) => method.methodKind === 'unary');
}
