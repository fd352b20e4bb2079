/**
 * @orkestra/testenv starts real test servers on loopback: etcd + kube-apiserver +
 * kube-controller-manager, moto for S3 and FerretDB for MongoDB. For tests and `ork dev`; never for production.
 *
 * Nothing is exported yet: see the package README for the plan.
 */
export {};
