import { CAMERA_LIMITS, type CameraView, type CreateCameraInput } from '../../schemas/vision.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { authorize } from '../policy/index.ts';
import type { Principal } from '../principal.ts';
import { newId } from '../security/index.ts';
import type { CameraService } from './cameras.ts';
import { cameraView, findCamera, findCompanyByCell } from './repository.ts';

/** Seals a credential for one camera (its id is the context: a sealed value moved to another row does not open). */
export function sealCredential(cameras: CameraService, cameraId: string, credential: { username: string; password: string }) {
  const { keyId, sealed } = cameras.secrets.seal(JSON.stringify(credential), cameraId);
  return { credential_sealed: sealed, credential_key_id: keyId };
}

/** Registers a camera of the company; its credential is sealed at once and never shown again. */
export async function registerCamera(
  db: DbOrTrx,
  clock: Clock,
  cameras: CameraService,
  principal: Principal,
  namespace: string,
  input: CreateCameraInput,
): Promise<CameraView> {
  authorize(principal, 'camera.manage', { namespace });
  const company = await findCompanyByCell(db, namespace);
  if (!company) throw new DomainError('organization_not_found', `No company ${namespace}.`, { details: { organization: namespace } });
  if (await findCamera(db, company.id, input.name)) {
    throw new DomainError('camera_name_exists', `${namespace} already has a camera ${input.name}.`, { details: { camera: input.name } });
  }
  const { count } = await db
    .selectFrom('cameras')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('company_id', '=', company.id)
    .executeTakeFirstOrThrow();
  if (Number(count) >= CAMERA_LIMITS.camerasPerCompany) {
    throw new DomainError('conflict', `A company holds at most ${CAMERA_LIMITS.camerasPerCompany} cameras.`, {
      details: { limit: CAMERA_LIMITS.camerasPerCompany },
    });
  }
  const id = newId('cam');
  const row = await db
    .insertInto('cameras')
    .values({
      id,
      company_id: company.id,
      name: input.name,
      kind: input.kind,
      url: input.url,
      max_viewers: input.maxViewers,
      ...(input.credentials ? sealCredential(cameras, id, input.credentials) : {}),
      created_by: principal.account.id,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return cameraView(row, clock.now());
}
