/** ProbeService: used only by the tests of @inkwell/grpc (see the proto file). */
export * from './gen/inkwell/testing/v1/testing_service_pb.js';
