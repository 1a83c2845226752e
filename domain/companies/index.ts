// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { chooseCompany } from './choose-company.ts';
export { companyLabels } from './company-labels.ts';
export { createCompany } from './create-company.ts';
export { getCompany, readCompany } from './get-company.ts';
export { deleteLicense, findCompany, findLicense, keyRole, licenseRole, licensesOf, upsertLicense } from './repository.ts';
export { visitorOf } from './visitor.ts';
