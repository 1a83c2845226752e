import type { Channel, MarkingRole, ResourceRole } from '../db/index.ts';
import { DomainError } from '../errors.ts';
import type { Principal } from '../principal.ts';
import type { AppAccess } from './app-access.ts';
import { markingRoleIncludes } from './markings.ts';
import {
  agentMayWrite,
  agentRestrictionsOf,
  type CompanyName,
  isAgentKey,
  isAppToken,
  isDataDeveloperOf,
  isDeveloperOf,
  isMemberOf,
  keyNamespaces,
  managesPeopleOf,
  mayWriteAs,
  PUBLIC_NAMESPACE,
  sharesAcrossCompanies,
  ticketAdmits,
} from './rules.ts';

// The one entry point of access decisions: every use case that reads or writes for a caller
// calls `authorize(principal, action, subject)` first (or `can` where a refusal only narrows
// what it answers). The route table (route-access.ts) admits caller kinds at the door; the
// decisions that need the target (this company, this app's role, this resource's grants) are here.

/** A company named by its namespace (`cell-…`, or `public` for the platform's official apps). */
export interface CompanySubject {
  namespace: string;
}

/** One app as this caller reaches it: the app-open rule's answer for the channel the caller uses. */
export interface AppSubject {
  app: { id: string; namespace: string; slug: string; companyId: string | null };
  channel: Channel;
  access: AppAccess;
}

/** A resource of the generic access model and the role the caller's grants and the implicit rules give on it. */
export interface ResourceSubject {
  rid: string;
  role: ResourceRole | null;
}

/** A marking and the caller's live role on it (null: none). */
export interface MarkingSubject {
  markingId: string;
  role: MarkingRole | null;
}

/** Markings to put on (add) or take off (remove) a resource: the caller's role on the resource and on each marking. */
export interface ResourceMarkingSubject extends ResourceSubject {
  change: 'add' | 'remove';
  markings: readonly MarkingSubject[];
}

/** An account found by exact username or email, and whether it relates to the caller's companies. */
export interface AccountSubject {
  /** The caller itself, a person of one of the caller's companies, or one those companies share with (a live named app share, a resource grant by one of their people). */
  related: boolean;
}

/** A company's camera (or all of them: `camera` null), and the cameras an app ticket's manifest lists (null: not a ticket). */
export interface CameraSubject {
  namespace: string;
  camera: string | null;
  appCameras: readonly string[] | null;
}

/**
 * A company's data stream (or its streams: `stream` null), and the streams an app ticket's
 * manifest lists (null: not a ticket).
 */
export interface StreamSubject {
  namespace: string;
  stream: string | null;
  appStreams: readonly string[] | null;
}

/** A company's world-model assets, and the SDKs an app ticket's manifest registers (null: not a ticket). */
export interface WorldSubject {
  namespace: string;
  appSdk: readonly string[] | null;
}

/** An attachment of a company (its namespace), and whether the caller's account uploaded it. */
export interface AttachmentSubject {
  rid: string;
  namespace: string;
  uploadedByCaller: boolean;
}

/** An upload session into a media property of a company's object type. */
export interface MediaUploadSubject extends CompanySubject {
  objectType: string;
  /** The session names its object (primaryKey): completing it edits that object directly. */
  direct: boolean;
  /** An existing session: its id, and whether the caller's account opened it. */
  session?: { uploadId: string; openedByCaller: boolean };
}

/** A media item an object's media property references, reached through that object (already read as the caller). */
export interface ObjectMediaSubject extends ResourceSubject {
  /** The item is in the property's own media set, where uploads into the property land. */
  propertySet: boolean;
}

/** The typed action catalogue: each action and the subject it is decided on. */
export interface Actions {
  /** See the company's apps, their registry, billing and capabilities: keys of the company (staff: `public` too). */
  'company.read': CompanySubject;
  /** Upload, promote, stored files: a developer key of the company (staff for `public`). */
  'app.deploy': CompanySubject;
  /** Manage the company: agent keys, members, billing, usage, the app log, semantic definitions: its developers. */
  'company.manage': CompanySubject;
  /** Read an app's card page (the card with the company's spend): the company's developers, by key or web session. */
  'app.read-card': CompanySubject;
  /** Open the app's channel (the app-open rule). */
  'app.open': AppSubject;
  /** Call its exports (reads, as the caller) and its MCP endpoint. */
  'app.call': AppSubject;
  /** Share the company's apps, list and revoke their shares: a developer through a key or a web session; never a ticket, an app token or an agent. */
  'app.share': CompanySubject;
  /** Start the app's workflow (API `run`, MCP `run` tool): anyone who may open it and write; never a viewer. */
  'app.workflow.run': AppSubject;
  /** Read the app's runs (list, watch): its developers, and its members and editors on the app page; never a viewer. */
  'app.workflow.read-runs': AppSubject;
  /** Read the app's usage figures: its developers, and the app's own page (its tickets and app tokens, whatever their role). */
  'app.read-usage': AppSubject;
  /** Send usage, error and feedback events to the app's log: anyone who may open the app. */
  'log.write': AppSubject;
  /** Read the ontology's data (which types: the data layer's DataAccess). */
  'ontology.read': CompanySubject;
  /** Apply actions in the ontology (API name or RID): never a viewer, never a read-only agent key. */
  'ontology.apply': { ontology: string };
  /** Edit objects directly and import them: the company's developers. */
  'ontology.edit': CompanySubject;
  /** Define object, link and action types (main definition or branches): the company's developers. */
  'ontology.define': CompanySubject;
  /**
   * Upload into an object type's media property: who edits objects directly, and a restricted agent
   * key for its listed types (spec Authentication 7); and an app ticket that may apply actions (never
   * a viewer's) for a session that names no object (the mediaReference then reaches an object through
   * an action), on the sessions its own account opened (others do not exist for it: 404).
   */
  'ontology.upload-media': MediaUploadSubject;
  /**
   * Read the media item an object's media property references, through the object (read first as
   * the caller: data access, markings, object security): an item of the property's own media set is
   * readable by whoever reads the object; one of another set needs a role on that set (media-set.read).
   */
  'media.read-through-object': ObjectMediaSubject;
  /** Approve, reject or merge a branch's proposal: a developer's human web login only (spec "Branches"); never a key, agent or ticket. */
  'ontology.decide-proposal': CompanySubject;
  /** Apply or reject an evolve proposal of the company's apps: a developer's human web login only (the branch rule); never a key, an agent or a ticket. */
  'evolve.decide': CompanySubject;
  /** See a resource and its grants: any role on it; otherwise it does not exist for the caller (404). */
  'resource.read': ResourceSubject;
  /** Grant, revoke, set the tier, create links: Owners only; never an agent key. */
  'resource.change-sharing': ResourceSubject;
  /** Send the mail test to the caller's own address: a person's key or web session; never an agent key, a ticket or an app token (an app page's scripts). */
  'notify.test': Record<string, never>;
  /** Create, read and delete a company's groups and their members, read its people: its developers and company admins, operators for every company; other companies' groups do not exist for the caller. */
  'people.manage': CompanySubject;
  /** Read a company's marking categories, markings and their role assignments: its people by key, operators for every company. */
  'markings.read': CompanySubject;
  /** Change a marking's role assignments: its ADMINISTER holders, and operators. */
  'marking.administer': MarkingSubject;
  /** Put markings on a resource (USE on each) or take them off (DECLASSIFY on each): its Owners only, never an agent key. */
  'resource.mark': ResourceMarkingSubject;
  /** Read Temporal payloads in clear (the Web UI's codec server): platform staff only, by key or web session. */
  'temporal.decode-payloads': Record<string, never>;
  /** Find an account as a sharing target: related accounts; any account for those who share across companies (developers, staff). */
  'account.find': AccountSubject;
  /**
   * Upload an attachment to the caller's company: whoever may apply actions (the attachment is an
   * action parameter's value); never a viewer, never a read-only agent key.
   */
  'attachment.upload': CompanySubject;
  /**
   * Read an attachment by its rid: its uploader, and the company's data developers, acting for its
   * company; for anyone else it does not exist (404 attachment_not_found). Objects holding it are
   * read through the object (ontology.read and the type's security).
   */
  'attachment.read': AttachmentSubject;
  /** Create a media set in a company: its data developers (they are its Owners); never an agent key, never a ticket. */
  'media-set.create': CompanySubject;
  /** Read a media set, its items and their bytes: any role on it; otherwise it does not exist for the caller (404). Never an agent key (spec: no media-set role). */
  'media-set.read': ResourceSubject;
  /** Put items and run transactions: Owners and Editors. */
  'media-set.write': ResourceSubject;
  /**
   * See, probe and watch a company's cameras (spec Authentication 8): its developers and members
   * only (keys, sessions, their app tickets); an app ticket only the cameras its manifest lists
   * (others do not exist for it: 404). Never a share holder, an agent key or an app token.
   */
  'camera.read': CameraSubject;
  /** Register, change and remove a company's cameras: its developers by key or web session; never a ticket. */
  'camera.manage': CompanySubject;
  /**
   * Call a model of the catalog: developers by key or web session (the route table); an app
   * ticket only a model its manifest lists (others do not exist for it: 404). Never an agent key.
   */
  'model.call': { model: string; appModels: readonly string[] | null };
  /** Data connections (their secrets), syncs and builds of a company: its data developers by key or web session; never a ticket or an agent key. */
  'connectivity.manage': CompanySubject;
  /**
   * Create, read, bind and delete a company's data streams (spec Authentication 2: the data-stream
   * interfaces are developers'): its data developers by key or web session; never a ticket or an
   * agent key. For a caller who does not act for the company, its streams do not exist (404).
   */
  'stream.manage': StreamSubject;
  /**
   * Push records into a stream: its data developers by key or web session, and the tickets of the
   * company's apps whose manifest lists the stream (spec Authentication 8; others do not exist for
   * them: 404), never a viewer's. Never an agent key or an app token.
   */
  'stream.push': StreamSubject;
  /** A company's automations (their runs, dry runs): its data developers by key or web session; never a ticket. */
  'automation.manage': CompanySubject;
  /** Create an application module in a company: its developers (they are its Owners); never a ticket. */
  'workshop.create': CompanySubject;
  /** Open a module (its published version: get, evaluate, auto-refresh): any role on it; otherwise it does not exist for the caller (404). */
  'workshop.read': ResourceSubject;
  /** Save versions and read unpublished ones: Owners and Editors. */
  'workshop.edit': ResourceSubject;
  /** Publish a version, delete the module: Owners only. */
  'workshop.manage': ResourceSubject;
  /**
   * View a company's world-model assets (spec G "Modeling"): its developers and members by key or
   * web session; an app ticket of the company's app whose manifest registers the `modeling` SDK,
   * whatever the visitor's role (the scenes are what the app shows). Never an agent key.
   */
  'world-asset.read': WorldSubject;
  /** Upload, replace and remove a company's world-model assets: its developers by key or web session; never a ticket. */
  'world-asset.manage': CompanySubject;
  /**
   * Ask for a world generation, charged to an app's world credits: an app ticket (never a viewer's)
   * of a company app that registers `modeling`. Official public apps never generate (spec Limits).
   */
  'world.generate': WorldSubject;
}
export type Action = keyof Actions;

type Refusal = DomainError;

const forbidden = (message: string, details?: Record<string, unknown>) => new DomainError('forbidden', message, details ? { details } : {});

/** Direct data-layer work (edits, definitions): developers of the namespace only. */
const dataDevelopersOnly = (principal: Principal, namespace: string, what: string): Refusal | null =>
  isDataDeveloperOf(principal, namespace)
    ? null
    : forbidden(`Only developers of ${namespace} may ${what}; members read types and run actions their apps list.`, {
        namespace,
        required: 'developer',
      });

const developerOnly = (principal: Principal, namespace: string): Refusal =>
  principal.kind === 'key'
    ? forbidden(
        `This is a developer-only interface and this key acts as a ${isAgentKey(principal) ? 'restricted agent' : 'member'} of ${principal.company.cellId}. ` +
          'Members may call published apps and see themselves; ask a company admin for a developer license, then log in again.',
        { namespace, role: principal.role, required: 'developer' },
      )
    : forbidden(`Only developers of ${namespace} may do this.`, { namespace, required: 'developer' });

const companyName = (namespace: string): CompanyName => (namespace === PUBLIC_NAMESPACE ? null : namespace);

/** The company's developers: a developer key of it, or a developer's web session (staff for `public`). */
const developersOfCompany = (p: Principal, s: CompanySubject): Refusal | null =>
  keyOutside(p, s.namespace) ?? (isDeveloperOf(p, companyName(s.namespace)) ? null : developerOnly(p, s.namespace));

/** An app ticket reaches the world-model assets of its own company only, and only when its manifest registers `modeling`. */
function modelingAppRefusal(p: Principal & { kind: 'ticket' }, s: WorldSubject): Refusal | null {
  if (p.ticket.namespace !== s.namespace) {
    return forbidden(`This app belongs to ${p.ticket.namespace}; it cannot reach the world-model assets of ${s.namespace}.`, {
      namespace: s.namespace,
    });
  }
  if (s.appSdk?.includes('modeling')) return null;
  return forbidden('This app’s manifest does not register the `modeling` SDK.', { sdk: 'modeling', registered: s.appSdk });
}

/** A key acts for its one company (staff keys also for `public`); sessions and tickets are judged by their licenses and apps. */
function keyOutside(principal: Principal, namespace: string): Refusal | null {
  if (principal.kind !== 'key' || keyNamespaces(principal).includes(namespace)) return null;
  return forbidden(
    namespace === PUBLIC_NAMESPACE
      ? 'Only platform accounts may use the public namespace.'
      : `This key acts for another company; it cannot use ${namespace}.`,
    { namespace },
  );
}

function appRefusal(principal: Principal, s: AppSubject): Refusal | null {
  if (!ticketAdmits(principal, s.app)) {
    const t = (principal as Extract<Principal, { kind: 'ticket' }>).ticket;
    return forbidden(`This app ticket admits only ${t.namespace}/${t.slug}.`, { namespace: t.namespace, slug: t.slug });
  }
  if (!s.access.allowed) return forbidden(`${s.access.message} ${s.access.remedy}`, { reason: s.access.reason });
  return null;
}

const roleIn = (s: AppSubject) => (s.access.allowed ? s.access.role : null);

const noMediaSet = (rid: string) => new DomainError('media_set_not_found', `No media set ${rid}.`, { details: { mediaSetRid: rid } });

/** A media set the caller may see: a role on it, and never an agent key (the spec gives agent keys no media-set role). */
const mediaSetRefusal = (p: Principal, s: ResourceSubject): Refusal | null => (s.role === null || isAgentKey(p) ? noMediaSet(s.rid) : null);

/** Whether the credential acts for the company: a key of it, a session with a license there, a ticket of one of its apps. */
const actsFor = (p: Principal, namespace: string) =>
  p.kind === 'key'
    ? keyNamespaces(p).includes(namespace)
    : p.kind === 'session'
      ? p.licenses.some((l) => l.cellId === namespace)
      : p.ticket.namespace === namespace;

const noUpload = (uploadId: string) => new DomainError('media_upload_not_found', `No upload ${uploadId}.`, { details: { uploadId } });

/** An app's page uploads as its visitor applies actions: never a viewer, never a direct edit, only its account's own sessions. */
function ticketUploadRefusal(p: Principal & { kind: 'ticket' }, s: MediaUploadSubject): Refusal | null {
  if (!mayWriteAs(p.ticket.role)) {
    return forbidden('Viewers read only: this app ticket cannot upload media.', { role: p.ticket.role, required: 'member' });
  }
  if (s.direct) {
    return forbidden(
      'A session that names its object (primaryKey) edits it directly, which only developers do. From an app, open the session ' +
        'without primaryKey and set the mediaReference it completes with through an action.',
      { objectType: s.objectType, required: 'developer' },
    );
  }
  return s.session && !s.session.openedByCaller ? noUpload(s.session.uploadId) : null;
}

const noAttachment = (rid: string) => new DomainError('attachment_not_found', `No attachment ${rid}.`, { details: { attachmentRid: rid } });

const noStream = (s: StreamSubject, listed?: readonly string[]) =>
  s.stream === null
    ? new DomainError('organization_not_found', `No company ${s.namespace}.`, { details: { organization: s.namespace } })
    : new DomainError(
        'stream_not_found',
        listed ? `This app's manifest does not list the stream ${s.stream} in \`streams\`.` : `No stream ${s.stream} in ${s.namespace}.`,
        { details: { namespace: s.namespace, stream: s.stream, ...(listed ? { listed } : {}) } },
      );

/** A company's streams: its data developers; hidden (404) from whoever does not act for the company, refused (403) to its other people. */
function streamDevelopersOnly(p: Principal, s: StreamSubject): Refusal | null {
  if (p.kind === 'ticket' || isAgentKey(p)) return forbidden('Data streams are used by developers through a key or a web session.');
  if (isDataDeveloperOf(p, s.namespace)) return null;
  return actsFor(p, s.namespace) ? dataDevelopersOnly(p, s.namespace, 'use data streams') : noStream(s);
}

/** A ticket pushes into its own company's streams that its manifest lists, when its visitor may write. */
function ticketPushRefusal(p: Principal & { kind: 'ticket' }, s: StreamSubject): Refusal | null {
  if (p.ticket.namespace !== s.namespace) return noStream(s);
  if (!mayWriteAs(p.ticket.role)) {
    return forbidden('Viewers read only: this app ticket cannot push records.', { role: p.ticket.role, required: 'member' });
  }
  return s.stream !== null && s.appStreams?.includes(s.stream) ? null : noStream(s, s.appStreams ?? []);
}

const noModule = (rid: string) =>
  new DomainError('workshop_module_not_found', `No application module ${rid}.`, { details: { moduleRid: rid } });
const moduleRefusal = (_p: Principal, s: ResourceSubject): Refusal | null => (s.role === null ? noModule(s.rid) : null);

const RULES: { [A in Action]: (principal: Principal, subject: Actions[A]) => Refusal | null } = {
  'company.read': (p, s) => (p.kind === 'key' ? keyOutside(p, s.namespace) : forbidden('A key of the company is required.')),
  'app.deploy': (p, s) =>
    keyOutside(p, s.namespace) ??
    (p.kind === 'key' && isDeveloperOf(p, companyName(s.namespace))
      ? null
      : forbidden('Members cannot write apps; a developer key is needed.', { namespace: s.namespace })),
  'company.manage': developersOfCompany,
  'app.read-card': developersOfCompany,
  'app.open': appRefusal,
  'app.call': appRefusal,
  'app.share': (p, s) => {
    if (p.kind === 'ticket') {
      return forbidden('Sharing is a developer action through a key or a web session; app tickets and app tokens never share.', {
        required: 'developer',
      });
    }
    return (
      keyOutside(p, s.namespace) ??
      (isDeveloperOf(p, companyName(s.namespace))
        ? null
        : forbidden('Only the app’s developers may manage its shares.', { required: 'developer' }))
    );
  },
  'app.workflow.run': (p, s) =>
    appRefusal(p, s) ??
    (isAgentKey(p)
      ? forbidden('Agent keys do not run workflows.')
      : !mayWriteAs(roleIn(s))
        ? forbidden('Viewers read only: they cannot run the app’s workflow.', { role: roleIn(s), required: 'member' })
        : s.channel === 'test' && roleIn(s) !== 'developer'
          ? forbidden('Members reach only the production channel.', { channel: s.channel })
          : null),
  'app.workflow.read-runs': (p, s) => {
    const refused = appRefusal(p, s);
    if (refused) return refused;
    // A key or session reads runs as a developer of the app; on the app page (a ticket or an app
    // token) members and editors see the app's runs too. Viewers start no runs, so they have none to see.
    const role = roleIn(s);
    if (p.kind === 'ticket' ? mayWriteAs(role) : role === 'developer') return null;
    return p.kind === 'ticket'
      ? forbidden('Viewers read only the app’s data: its workflow runs are not theirs to see.', { role, required: 'member' })
      : developerOnly(p, s.app.namespace);
  },
  'app.read-usage': (p, s) =>
    appRefusal(p, s) ?? (p.kind === 'ticket' || roleIn(s) === 'developer' ? null : developerOnly(p, s.app.namespace)),
  'log.write': appRefusal,
  'ontology.read': () => null,
  'ontology.apply': (p) => {
    if (!agentMayWrite(p)) {
      return forbidden('This agent key is read-only: it was issued without api:use-ontologies-write.', {
        required: 'api:use-ontologies-write',
      });
    }
    if (p.kind === 'ticket' && !mayWriteAs(p.ticket.role)) {
      return forbidden('Viewers read only: this app ticket cannot apply actions.', { role: p.ticket.role, required: 'member' });
    }
    return null;
  },
  'ontology.edit': (p, s) => dataDevelopersOnly(p, s.namespace, 'edit objects directly'),
  'ontology.define': (p, s) => dataDevelopersOnly(p, s.namespace, 'define semantic types'),
  'ontology.upload-media': (p, s) => {
    if (p.kind === 'ticket') return ticketUploadRefusal(p, s);
    const restrictions = agentRestrictionsOf(p);
    if (restrictions === null) return dataDevelopersOnly(p, s.namespace, 'upload media into object properties');
    const ownCompany = p.kind === 'key' && (p.company.cellId === s.namespace || p.company.id === s.namespace);
    return ownCompany && agentMayWrite(p) && restrictions.objectTypes.includes(s.objectType)
      ? null
      : forbidden('This agent key uploads media only into the object types it lists, with api:use-ontologies-write.', {
          objectType: s.objectType,
          required: 'api:use-ontologies-write',
        });
  },
  'ontology.decide-proposal': (p, s) =>
    p.kind !== 'session'
      ? forbidden('Approving, rejecting and merging a proposal accept only a human web login: sign in on the web.', { required: 'session' })
      : dataDevelopersOnly(p, s.namespace, 'decide proposals'),
  'evolve.decide': (p, s) =>
    p.kind !== 'session'
      ? forbidden('Applying and rejecting a proposal accept only a human web login: sign in on the web.', { required: 'session' })
      : developersOfCompany(p, s),
  'resource.read': (_p, s) => (s.role ? null : new DomainError('not_found', `No resource ${s.rid}.`, { details: { rid: s.rid } })),
  'resource.change-sharing': (_p, s) =>
    !s.role
      ? new DomainError('not_found', `No resource ${s.rid}.`, { details: { rid: s.rid } })
      : s.role !== 'owner'
        ? forbidden('Only an Owner may change sharing.', { role: s.role, required: 'owner' })
        : null,
  'notify.test': (p) =>
    p.kind === 'ticket' || isAgentKey(p)
      ? forbidden('The mail test is sent for a person’s own key or web session, never for an agent key or an app’s credential.')
      : null,
  'people.manage': (p, s) =>
    managesPeopleOf(p, companyName(s.namespace))
      ? null
      : forbidden(`Only admins and developers of ${s.namespace} (and operators) manage its groups and read its people.`, {
          namespace: s.namespace,
          required: 'developer',
        }),
  'markings.read': (p, s) =>
    p.kind !== 'ticket' && !isAgentKey(p) && (p.account.platformStaff || isMemberOf(p, companyName(s.namespace)))
      ? null
      : forbidden(`Only people of ${s.namespace} (and operators) read its markings.`, { namespace: s.namespace }),
  'marking.administer': (p, s) =>
    (p.kind !== 'ticket' && !isAgentKey(p) && p.account.platformStaff) || markingRoleIncludes(s.role, 'administer')
      ? null
      : forbidden('Only an ADMINISTER of the marking (or an operator) changes its role assignments.', {
          markingId: s.markingId,
          role: s.role,
          required: 'administer',
        }),
  'resource.mark': (p, s) => {
    const refused = RULES['resource.change-sharing'](p, s);
    if (refused) return refused;
    if (isAgentKey(p)) return forbidden('Agent keys never change a resource’s markings.');
    const needed: MarkingRole = s.change === 'add' ? 'use' : 'declassify';
    const lacking = s.markings.filter((m) => !markingRoleIncludes(m.role, needed)).map((m) => m.markingId);
    return lacking.length === 0
      ? null
      : forbidden(
          s.change === 'add' ? 'Applying a marking needs the USE role on it.' : 'Removing a marking needs the DECLASSIFY role on it.',
          { markingIds: lacking, required: needed },
        );
  },
  'temporal.decode-payloads': (p) =>
    p.kind !== 'ticket' && !isAgentKey(p) && p.account.platformStaff
      ? null
      : forbidden('Workflow payloads hold every company’s data: only platform staff may read them in clear.', {
          required: 'platform-staff',
        }),
  'account.find': (p, s) =>
    s.related || sharesAcrossCompanies(p)
      ? null
      : forbidden('Only accounts related to your companies can be found; a developer shares with others.'),
  'media-set.create': (p, s) =>
    p.kind === 'ticket' ? forbidden('App tickets do not create media sets.') : dataDevelopersOnly(p, s.namespace, 'create media sets'),
  'media-set.read': mediaSetRefusal,
  'media.read-through-object': (p, s) => (s.propertySet ? null : mediaSetRefusal(p, s)),
  'attachment.upload': (p, s) => RULES['ontology.apply'](p, { ontology: s.namespace }),
  'attachment.read': (p, s) =>
    actsFor(p, s.namespace) && (s.uploadedByCaller || isDataDeveloperOf(p, s.namespace)) ? null : noAttachment(s.rid),
  'camera.read': (p, s) => {
    if (isAgentKey(p)) return forbidden('Agent keys have no access to cameras.');
    const refused =
      keyOutside(p, s.namespace) ??
      (isMemberOf(p, companyName(s.namespace))
        ? null
        : forbidden(`Cameras of ${s.namespace} are for its developers and members only.`, { namespace: s.namespace, required: 'member' }));
    if (refused || p.kind !== 'ticket' || s.camera === null || s.appCameras?.includes(s.camera)) return refused;
    return new DomainError('camera_not_found', `This app's manifest does not list the camera ${s.camera}.`, {
      details: { camera: s.camera, listed: s.appCameras },
    });
  },
  'model.call': (p, s) => {
    if (isAgentKey(p)) return forbidden('Agent keys do not call models.');
    if (p.kind !== 'ticket' || s.appModels?.includes(s.model)) return null;
    return new DomainError('model_not_found', `This app's manifest does not list the model ${s.model} in \`models\`.`, {
      details: { model: s.model, listed: s.appModels },
    });
  },
  'world-asset.read': (p, s) => {
    if (isAgentKey(p)) return forbidden('Agent keys have no access to world-model assets.');
    if (p.kind === 'ticket') return modelingAppRefusal(p, s);
    return (
      keyOutside(p, s.namespace) ??
      (isMemberOf(p, companyName(s.namespace))
        ? null
        : forbidden(`World-model assets of ${s.namespace} are for its developers, members and apps.`, {
            namespace: s.namespace,
            required: 'member',
          }))
    );
  },
  'world-asset.manage': (p, s) =>
    p.kind === 'ticket'
      ? forbidden('App tickets never change world-model assets; a developer key or web session does.')
      : developersOfCompany(p, s),
  'world.generate': (p, s) => {
    if (p.kind !== 'ticket') {
      return forbidden('A generation is charged to an app’s world credits: it is asked for with the app’s ticket.', {
        required: 'app-ticket',
      });
    }
    if (p.ticket.companyId === null) {
      return forbidden('Official public apps never generate worlds; they view assets only.', { reason: 'official_public_app' });
    }
    if (!mayWriteAs(p.ticket.role)) {
      return forbidden('Viewers view scenes only: this app ticket cannot ask for a generation.', {
        role: p.ticket.role,
        required: 'member',
      });
    }
    return modelingAppRefusal(p, s);
  },
  'camera.manage': (p, s) =>
    p.kind === 'ticket' ? forbidden('App tickets never change cameras; a developer key or web session does.') : developersOfCompany(p, s),
  'connectivity.manage': (p, s) =>
    p.kind === 'ticket'
      ? forbidden('Data connections, syncs and builds are managed by developers through a key or a web session, never an app ticket.')
      : dataDevelopersOnly(p, s.namespace, 'manage data connections, syncs and builds'),
  'stream.manage': streamDevelopersOnly,
  'stream.push': (p, s) => (p.kind === 'ticket' && !isAppToken(p) ? ticketPushRefusal(p, s) : streamDevelopersOnly(p, s)),
  'automation.manage': (p, s) =>
    p.kind === 'ticket'
      ? forbidden('Automations are managed by developers through a key or a web session, never an app ticket.')
      : dataDevelopersOnly(p, s.namespace, 'manage automations'),
  'media-set.write': (p, s) =>
    mediaSetRefusal(p, s) ??
    (s.role === 'viewer'
      ? forbidden('Viewers read the media set only; putting items needs the Editor role.', { role: s.role, required: 'editor' })
      : null),
  'workshop.create': (p, s) =>
    p.kind === 'ticket' ? forbidden('App tickets do not create application modules.') : developersOfCompany(p, s),
  'workshop.read': moduleRefusal,
  'workshop.edit': (p, s) =>
    moduleRefusal(p, s) ??
    (s.role === 'viewer'
      ? forbidden('Viewers open the published version only; saving versions needs the Editor role.', { role: s.role, required: 'editor' })
      : null),
  'workshop.manage': (p, s) =>
    moduleRefusal(p, s) ??
    (s.role !== 'owner' ? forbidden('Only an Owner may publish or delete the module.', { role: s.role, required: 'owner' }) : null),
};

/** Throws the refusal (forbidden, or not_found where the subject must stay invisible) unless the caller may. */
export function authorize<A extends Action>(principal: Principal, action: A, subject: Actions[A]): void {
  const refused = RULES[action](principal, subject);
  if (refused) throw refused;
}

/** Actions whose rule admits account keys only. */
type KeyOnlyAction = 'company.read' | 'app.deploy';

/**
 * `authorize` for the actions only a key passes, telling the type checker the caller is a key
 * (use cases then read its company without a check of their own); fails closed should a rule
 * ever admit another credential.
 */
export function authorizeKey<A extends KeyOnlyAction>(
  principal: Principal,
  action: A,
  subject: Actions[A],
): asserts principal is Extract<Principal, { kind: 'key' }> {
  authorize(principal, action, subject);
  if (principal.kind !== 'key') throw forbidden('A key of the company is required.');
}

/** The same decision as a boolean, for answers that only narrow (lists, flags). */
export function can<A extends Action>(principal: Principal, action: A, subject: Actions[A]): boolean {
  return RULES[action](principal, subject) === null;
}
